/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_NUFFT3_PLAN_H
#define INCLUDED_GPUFFT_NUFFT3_PLAN_H

#include <gnuradio/gpufft/api.h>
#include <gnuradio/gpufft/backend.h>
#include <gnuradio/gpufft/log.h>
#include <complex>
#include <cstdint>
#include <memory>
#include <string>

namespace gr {
namespace gpufft {

//! The spreading/interpolation kernel of a type-3 NUFFT.
enum class nufft_kernel {
    //! Exponential of semicircle (Barnett et al., FINUFFT): width from eps, the default.
    es,
    //! Gaussian gridding with the parameter rules of Capozzoli et al. (Table 1, eq. 6):
    //! the reference method of the paper this engine started from; wider, so slower.
    gaussian,
};

//! How the CUDA backend fills a shared-memory tile of the fine grid when spreading.
enum class nufft_spread {
    //! gather in 2D and 3D with kernels of up to 16 taps, scatter elsewhere.
    automatic,
    //! Each thread adds one source's taps with shared-memory atomics.
    scatter,
    //! Each thread sums, for the cells it owns, the sources whose taps reach them: no
    //! atomics. 2D and 3D with up to 16 taps; scatter elsewhere.
    gather,
    //! Each thread sums the sources whose taps reach its one grid cell and writes the
    //! cell: no tile to add into the grid, no atomics, no clearing of the grids first.
    //! 2D with up to 16 taps; as `automatic` elsewhere.
    direct,
};

//! How a plan computes the sums.
enum class nufft_method {
    //! The cheaper of the two by a cost model (docs/nufft3.md), and the direct sum
    //! wherever the fine grid does not fit the memory budget.
    automatic,
    //! Spread, FFT, interpolate on a fine grid (the NUFFT proper).
    grid,
    //! F[k] = sum_j c[j] exp(...) term by term, phases and sums in double: n_sources x
    //! n_targets terms per vector, no grid; exact to rounding.
    direct,
};

// The options' names, each from one table (lib/nufft/nufft3_names.cc) that the engine,
// the blocks and the Python bindings share. A parser throws std::invalid_argument
// naming the option and the accepted names; *_names() gives those ("'es' or
// 'gaussian'") for other messages.

//! "es" or "gaussian" -> nufft_kernel.
GPUFFT_API nufft_kernel parse_nufft_kernel(const std::string& name);
GPUFFT_API std::string to_string(nufft_kernel k);
GPUFFT_API std::string nufft_kernel_names();
//! "auto", "scatter", "gather" or "direct" -> nufft_spread.
GPUFFT_API nufft_spread parse_nufft_spread(const std::string& name);
GPUFFT_API std::string to_string(nufft_spread s);
GPUFFT_API std::string nufft_spread_names();
//! "auto", "grid" or "direct" -> nufft_method.
GPUFFT_API nufft_method parse_nufft_method(const std::string& name);
GPUFFT_API std::string to_string(nufft_method m);
GPUFFT_API std::string nufft_method_names();

struct nufft3_options {
    gpufft::backend backend = backend::automatic;
    int device_id = 0;
    gpufft::precision precision = precision::double_;
    //! Sign of the exponent: -1 (default) or +1.
    int sign = -1;
    nufft_kernel kernel = nufft_kernel::es;
    /*!
     * Fine-grid upsampling factor. 0 picks one by a cost model among those that reach eps
     * in the plan's precision: 2, 1.75, 1.5 or 1.25 (es; below 2 only where rounding
     * leaves most of eps to the kernel), R in {2.2, 2.5, 3, 4} (gaussian, whose rules
     * need R > 2). es accepts 1.25 <= upsampling <= 2, gaussian 2 < R <= 4.
     */
    double upsampling = 0;
    //! Largest fine grid plus point arrays, in bytes; 0: 3/4 of the device's free memory
    //! (CUDA) or 1/2 of the host's physical memory (CPU).
    std::size_t memory_budget = 0;
    //! CPU threads; 0 uses every hardware thread.
    int threads = 0;
    //! Where the plan's messages go (gnuradio/gpufft/log.h); empty: stderr.
    gpufft::log_handler log;
    /*!
     * Per-stage device times: every set_points and execute sends one line to `log` at
     * log_level::debug, "nufft3 execute: upload <t> ms clear <t> ms spread <t> ms fft
     * <t> ms interp <t> ms" (set_points: upload, extents, configure, sources, targets).
     * CUDA backend only; the CPU backend ignores it. Off, no CUDA events are recorded.
     */
    bool trace = false;
    //! How spreading fills the grids (CUDA backend only; the CPU backend ignores it;
    //! Python: spread="auto", "scatter", "gather" or "direct").
    //! The forms agree to rounding; automatic is the faster on every case measured.
    nufft_spread spread = nufft_spread::automatic;
    //! Grid or direct sum (Python: method="auto", "grid" or "direct"); set_points
    //! chooses under automatic, and describe() says which and why.
    nufft_method method = nufft_method::automatic;
};

/*!
 * Type-3 non-uniform FFT in 1, 2 or 3 dimensions:
 *
 *   F[k] = sum_j c[j] exp(sign * i * (s[k] x[j] + t[k] y[j] + u[k] z[j]))
 *
 * (3D; 2D drops u, z; 1D also t, y)
 * for arbitrary real sources (x, y) and targets (s, t), to a relative l2 error of about
 * eps. Sources and targets are centred and rescaled (in double), the sources spread with
 * a compact kernel onto a fine grid, which is FFT'd and interpolated at the targets; the
 * kernels' Fourier transforms are divided out on the grid and at the targets.
 *
 * set_points() does every per-point computation that does not depend on c (extents, the
 * fine grid, sorting the sources into bins, the correction factors), so execute() with
 * new strengths is cheap, and execute() with a count takes several strength vectors on
 * the same points in one call (one FFT plan over all of them). Call set_points() again
 * for new points: the plan re-uses its buffers and FFT plans whenever the new fine grid
 * fits the old one.
 *
 * Arrays given with memory::device must be CUDA device pointers (CUDA backend only);
 * with the CUDA backend every stage runs on the device between set_points and the result.
 * Not thread-safe: one plan, one caller at a time.
 */
class GPUFFT_API nufft3_plan
{
public:
    /*!
     * dim: 1, 2 or 3. eps: 1e-6..1e-1 (single) or 1e-12..1e-1 (double). A single-
     * precision plan whose eps no kernel and upsampling reaches with a grid in single
     * (3D at 1e-6: rounding amplified by the correction factors) computes its grid in
     * double and converts at the ends; only where no candidate reaches eps is it refused.
     */
    nufft3_plan(int dim, double eps, const nufft3_options& options = nufft3_options());
    ~nufft3_plan();
    nufft3_plan(nufft3_plan&&) noexcept;
    nufft3_plan& operator=(nufft3_plan&&) noexcept;
    nufft3_plan(const nufft3_plan&) = delete;
    nufft3_plan& operator=(const nufft3_plan&) = delete;

    //! 1D: n_sources x and n_targets s.
    void set_points(std::int64_t n_sources,
                    const double* x,
                    std::int64_t n_targets,
                    const double* s,
                    memory where = memory::host);
    //! 2D: sources (x, y) and targets (s, t).
    void set_points(std::int64_t n_sources,
                    const double* x,
                    const double* y,
                    std::int64_t n_targets,
                    const double* s,
                    const double* t,
                    memory where = memory::host);
    //! 3D: sources (x, y, z) and targets (s, t, u).
    void set_points(std::int64_t n_sources,
                    const double* x,
                    const double* y,
                    const double* z,
                    std::int64_t n_targets,
                    const double* s,
                    const double* t,
                    const double* u,
                    memory where = memory::host);

    /*!
     * F from c; single-precision plans only. `ntransf` >= 1 strength vectors that share
     * the points: c holds ntransf vectors of n_sources one after the other, F receives
     * ntransf vectors of n_targets the same way (all of them in one pass: one spread
     * launch, one batched FFT, one interpolation launch, as many grids at a time as the
     * memory budget allows). Host strengths that are NaN or infinite are refused
     * (std::invalid_argument naming the first); device strengths are not checked, and
     * such a strength makes every F of its vector non-finite.
     */
    void execute(const std::complex<float>* c,
                 std::complex<float>* F,
                 memory where = memory::host,
                 int ntransf = 1);
    //! As above; double-precision plans only.
    void execute(const std::complex<double>* c,
                 std::complex<double>* F,
                 memory where = memory::host,
                 int ntransf = 1);

    int dim() const;
    double eps() const;
    gpufft::precision precision() const;
    gpufft::backend backend() const; //!< never automatic
    int device_id() const;
    int sign() const;
    nufft_kernel kernel() const;
    std::int64_t n_sources() const; //!< 0 before set_points
    std::int64_t n_targets() const;
    //! The fine grid chosen by the last set_points (axis 0..2; 1 in unused dimensions;
    //! 0 before set_points and for the direct sum).
    std::int64_t grid_size(int axis) const;
    //! Kernel width in grid cells and upsampling factor chosen by the last set_points
    //! (0 when it chose the direct sum, as grid_size then is).
    double kernel_width() const;
    double upsampling() const;
    //! What the last set_points chose: nufft_method::grid or nufft_method::direct
    //! (automatic before set_points).
    nufft_method method() const;
    /*!
     * One line on what the plan does: dimension, precision, eps, backend and, after
     * set_points, the method with its reason (the grid's cells, kernel, upsampling and
     * the precision the grid is computed in, or the direct sum's term count and why it
     * was chosen).
     */
    std::string describe() const;

    class impl;

private:
    std::unique_ptr<impl> d_impl;
};

} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_NUFFT3_PLAN_H */
