/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <pybind11/pybind11.h>

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

namespace py = pybind11;

// Headers for binding functions
/**************************************/
// The following comment block is used for
// gr_modtool to insert function prototypes
// Please do not delete
/**************************************/
// BINDING_FUNCTION_PROTOTYPES(
void bind_core(py::module& m);
void bind_sparse_fft_plan(py::module& m);
void bind_sparse_fft(py::module& m);
void bind_large_fft_plan(py::module& m);
void bind_large_fft_accumulator(py::module& m);
void bind_nufft3_plan(py::module& m);
void bind_nufft3_spectrum(py::module& m);
void bind_nufft_resampler(py::module& m);
void bind_spectrum_integrator(py::module& m);
void bind_sensing_plan(py::module& m);
// ) END BINDING_FUNCTION_PROTOTYPES


// We need this hack because import_array() returns NULL
// for newer Python versions.
// This function is also necessary because it ensures access to the C API
// and removes a warning.
void* init_numpy()
{
    import_array();
    return NULL;
}

PYBIND11_MODULE(gpufft_python, m)
{
    // Initialize the numpy C API
    // (otherwise we will see segmentation faults)
    init_numpy();

    // Allow access to base block methods
    py::module::import("gnuradio.gr");

    /**************************************/
    // The following comment block is used for
    // gr_modtool to insert binding function calls
    // Please do not delete
    /**************************************/
    // BINDING_FUNCTION_CALLS(
    bind_core(m);
    bind_sparse_fft_plan(m);
    bind_sparse_fft(m);
    bind_large_fft_plan(m);
    bind_large_fft_accumulator(m);
    bind_nufft3_plan(m);
    bind_nufft3_spectrum(m);
    bind_nufft_resampler(m);
    bind_spectrum_integrator(m);
    bind_sensing_plan(m);
    // ) END BINDING_FUNCTION_CALLS
}
