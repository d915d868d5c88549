/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The large FFT's own device kernels behind plain C++ launchers (no CUDA types here
// beyond an opaque stream). Arrays are complex<float> or complex<double> per `dbl`.

#ifndef INCLUDED_GPUFFT_LARGE_FFT_KERNELS_H
#define INCLUDED_GPUFFT_LARGE_FFT_KERNELS_H

#include <cstdint>

namespace gr {
namespace gpufft {
namespace detail {

/*!
 * The four-step twiddle of element (k, j) of row-major [batch][rows][cols]:
 * exp(sign 2 pi i k * ((b0 + j) / div) / n), the angle reduced exactly in integers.
 */
struct twiddle_params {
    bool on = false;
    std::int64_t b0 = 0, n = 1, div = 1;
    int sign = -1;
    //! The matrix is stored transposed: k is the column index and j the row index.
    bool swap = false;
};

//! In place: element (k, j) of each [rows][cols] matrix times its twiddle.
void launch_twiddle(void* buf,
                    bool dbl,
                    std::int64_t batch,
                    std::int64_t rows,
                    std::int64_t cols,
                    const twiddle_params& tw,
                    void* stream);

//! out[b][c][r] = in[b][r][c] * twiddle(r, c): a tiled transpose through shared memory.
void launch_transpose(const void* in,
                      void* out,
                      bool dbl,
                      std::int64_t batch,
                      std::int64_t rows,
                      std::int64_t cols,
                      const twiddle_params& tw,
                      void* stream);

/*!
 * out[c][r] = in[r * pitch + c] for r < rows, c < cols: a column block of a pitched
 * matrix transposed into a contiguous [cols][rows] (so each output row is a long run);
 * launch_transpose's kernel with the input's rows `pitch` apart and no twiddle.
 */
void launch_pitched_transpose(const void* in,
                              std::int64_t pitch,
                              void* out,
                              bool dbl,
                              std::int64_t rows,
                              std::int64_t cols,
                              void* stream);

//! out[q][r][u] = in[r][q * unit + u] for rows x cols (cols a multiple of unit): the
//! runs of `unit` elements of each row gathered by their column of runs.
void launch_unit_transpose(const void* in,
                           void* out,
                           bool dbl,
                           std::int64_t rows,
                           std::int64_t cols,
                           std::int64_t unit,
                           void* stream);

/*!
 * `batch` contiguous rows of n (a power of two, 2..2^24) transformed in place with the
 * Stockham stages of stockham.h, `scratch` (as large as the rows) in between; loads and
 * stores evict-first. sign: -1 forward, +1 backward.
 */
void launch_stockham_fft(void* data,
                         void* scratch,
                         bool dbl,
                         std::int64_t n,
                         std::int64_t batch,
                         int sign,
                         void* stream);

struct four_step_geometry; // four_step.h

/*!
 * The transforms of four_step.h on `data` (kernel A, in place) and `out` (kernel B, a
 * different array): L = g.L1 g.L2 a power of two from 4 to 2^16, L1 >= L2; the output
 * times the pass twiddle `tw` when tw.on; non-finite input sets *flag unless flag is
 * null. Loads and stores evict-first. sign: -1 forward, +1 backward.
 */
void launch_four_step_fft(void* data,
                          void* out,
                          bool dbl,
                          const four_step_geometry& g,
                          int sign,
                          const twiddle_params& tw,
                          int* flag,
                          void* stream);

//! Sets *flag (device int) to 1 when one of n complex values is not finite.
void launch_finite_check(
    const void* buf, bool dbl, std::int64_t n, int* flag, void* stream);

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_LARGE_FFT_KERNELS_H */
