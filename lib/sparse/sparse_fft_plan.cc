/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "core/host_memory.h"
#include "core/memory_error.h"
#include "sparse/exact/exact_backend.h"
#include "sparse/robust/robust_backend.h"
#include "sparse/robust/robust_pair_model.h"
#include <gnuradio/gpufft/device.h>
#include <gnuradio/gpufft/sparse_fft_plan.h>
#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gr {
namespace gpufft {

class sparse_fft_plan::impl
{
public:
    detail::sparse_params params;
    gpufft::backend used = backend::cpu;
    int device_id = -1;
    std::unique_ptr<detail::sparse_exact_backend> engine;  // exact mode
    std::unique_ptr<detail::sparse_robust_backend> robust; // robust mode
    //! Robust mode, sublinear path: the dense path that redoes a frame whose self-check
    //! failed; made at the first such frame.
    std::unique_ptr<detail::sparse_robust_backend> redo;
    sparse_fft_stats stats;
    detail::robust_frame frame;
    std::vector<sparse_tone> tones;
    double noise_floor = 0;

    //! The sizes in words, for out-of-memory errors.
    auto sizes() const
    {
        return [this] { return detail::describe_params(params); };
    }

    void check(const std::complex<float>* x, memory where) const
    {
        if (!x)
            throw std::invalid_argument("x: is a null pointer");
        if (where == memory::device && used != backend::cuda)
            throw std::invalid_argument("where: device arrays need the CUDA backend");
    }

    //! The dense FFT + threshold path of these parameters, on the plan's backend.
    //! Where n is too large for a dense path in this memory, the frame keeps the
    //! sparse answer, counted as unverified, and the log says so once.
    void make_redo()
    {
        try {
            check_dense_memory(params.c.n, used, device_id);
        } catch (const std::invalid_argument& e) {
            redo_refused = true;
            log_message(log,
                        log_level::warning,
                        std::string("sparse_fft_plan: a frame failed the sublinear "
                                    "path's self-check and cannot be redone densely (") +
                            e.what() +
                            "); such frames are counted in "
                            "stats().unverified");
            return;
        }
        detail::sparse_params dense = params;
        dense.dense = true;
        dense.dense_reason = "a frame failed the sublinear path's self-check";
#ifdef GPUFFT_HAVE_CUDA
        if (used == backend::cuda) {
            redo = detail::make_dense_threshold_cuda(dense, device_id);
            return;
        }
#endif
        redo = detail::make_dense_threshold_cpu(dense);
    }
    bool redo_refused = false;
    gpufft::log_handler log;

    //! Throws std::invalid_argument when a dense path of n cannot fit where it runs.
    static void check_dense_memory(std::int64_t n, gpufft::backend used, int device_id);
    //! The backend for d.params on d.used.
    static void make_backend(impl& d, const sparse_fft_options& o);

    // Robust mode: the backend's coefficients, grouped into tones.
    void run_robust(const std::complex<float>* x, memory where)
    {
        ++stats.frames;
        robust->run(x, where, frame);
        if (frame.check != detail::robust_check::passed) {
            ++stats.redone_dense;
            ++(frame.check == detail::robust_check::floor ? stats.floor_failed
                                                          : stats.residual_failed);
            if (!redo && !redo_refused)
                make_redo();
            if (redo)
                redo->run(x, where, frame);
            else
                ++stats.unverified;
        }
        noise_floor = frame.bin_noise / params.window_power;
        detail::finish_tones(params.rc, params.k, frame);
        // No tone far under the threshold. A modulated carrier passes the windowed
        // threshold, but a tone fitted to a piece of it may explain little of its
        // power (an FM comb's lines at 0-4 dB per bin, one at -43 dB, where the
        // threshold's weakest tone is 14 dB). Tones of the threshold's own scatter
        // stay: only those 6 dB or more under its weakest go.
        const double least =
            10.0 * std::log10(detail::robust_pair_min_power(params.rc, params.eta, 1.0)) -
            6.0;
        auto& t = frame.tones;
        t.erase(
            std::remove_if(t.begin(),
                           t.end(),
                           [least](const sparse_tone& x) { return x.snr_db < least; }),
            t.end());
        tones.swap(frame.tones);
    }
};

sparse_fft_plan::sparse_fft_plan(std::int64_t n,
                                 std::int64_t k,
                                 const sparse_fft_options& o)
    : d_impl(std::make_unique<impl>())
{
    auto& d = *d_impl;
    // Parameters first: bad n, k or mode are reported before any device question.
    detail::choose_sparse_params(n, k, o, backend::cpu);
    d.used = resolve_backend(o.backend, o.device_id, o.log);
    d.params = detail::choose_sparse_params(n, k, o, d.used);
    d.log = o.log;
    if (d.params.dense && !o.force_dense)
        log_message(o.log, log_level::info, detail::describe_params(d.params));
    if (d.params.dense)
        impl::check_dense_memory(n, d.used, o.device_id);
    detail::with_memory_context(
        "sparse_fft_plan", d.sizes(), [&] { impl::make_backend(d, o); });
}

void sparse_fft_plan::impl::check_dense_memory(std::int64_t n,
                                               gpufft::backend used,
                                               int device_id)
{
    // A dense path holds the spectrum and the windowed spectrum: 16 bytes a sample; on
    // the device for CUDA, with the frame the FFT reads: 24. Refused up front:
    // allocating past the host's memory swaps for minutes before it fails.
    const std::uint64_t need = (used == backend::cuda ? 24 : 16) * std::uint64_t(n);
    const detail::backend_memory have = detail::memory_of(used, device_id);
    if (have.bytes > 0 && need > have.bytes)
        throw std::invalid_argument(
            "n: " + std::to_string(n) + " runs as a dense FFT + threshold, which needs " +
            detail::gib_string(need) + "; " + have.holder + " " +
            detail::gib_string(have.bytes) +
            " (a smaller n; in robust mode, a higher min_snr_db lets the sparse path "
            "run)");
}

void sparse_fft_plan::impl::make_backend(impl& d,
                                         [[maybe_unused]] const sparse_fft_options& o)
{
    const std::int64_t n = d.params.c.n, k = d.params.k;
    if (d.params.robust) {
        if (d.used == backend::cuda) {
#ifdef GPUFFT_HAVE_CUDA
            d.device_id = resolve_device_id(o.device_id);
            d.robust = d.params.dense
                           ? detail::make_dense_threshold_cuda(d.params, d.device_id)
                           : detail::make_robust_cuda(d.params, d.device_id, o.transfer);
#endif
        } else {
            d.robust = d.params.dense ? detail::make_dense_threshold_cpu(d.params)
                                      : detail::make_robust_cpu(d.params);
        }
        return;
    }
    if (d.used == backend::cuda) {
#ifdef GPUFFT_HAVE_CUDA
        d.device_id = resolve_device_id(o.device_id);
        d.engine = d.params.dense
                       ? detail::make_dense_topk_cuda(n, k, d.device_id)
                       : detail::make_sparse_cuda(d.params, d.device_id, o.transfer);
#endif
    } else {
        d.engine = d.params.dense ? detail::make_dense_topk_cpu(n, k)
                                  : detail::make_sparse_cpu(d.params);
    }
}

sparse_fft_plan::~sparse_fft_plan() = default;
sparse_fft_plan::sparse_fft_plan(sparse_fft_plan&&) noexcept = default;
sparse_fft_plan& sparse_fft_plan::operator=(sparse_fft_plan&&) noexcept = default;

void sparse_fft_plan::execute(const std::complex<float>* x,
                              std::vector<std::int64_t>& bins,
                              std::vector<std::complex<float>>& values,
                              memory where)
{
    auto& d = *d_impl;
    d.check(x, where);
    detail::with_memory_context("sparse_fft_plan.execute", d.sizes(), [&] {
        if (d.robust) {
            d.run_robust(x, where);
            detail::tone_coefficients(d.params.c.n,
                                      d.params.k,
                                      d.params.eta * d.noise_floor,
                                      d.tones,
                                      bins,
                                      values);
            return;
        }
        ++d.stats.frames;
        d.engine->execute(x, where, bins, values);
    });
}

void sparse_fft_plan::detect(const std::complex<float>* x,
                             std::vector<sparse_tone>& tones,
                             memory where)
{
    auto& d = *d_impl;
    d.check(x, where);
    if (d.robust) {
        detail::with_memory_context(
            "sparse_fft_plan.detect", d.sizes(), [&] { d.run_robust(x, where); });
        tones = d.tones;
        return;
    }
    // Exact mode: each located coefficient is an on-grid tone.
    ++d.stats.frames;
    std::vector<std::int64_t> bins;
    std::vector<std::complex<float>> values;
    detail::with_memory_context("sparse_fft_plan.detect", d.sizes(), [&] {
        d.engine->execute(x, where, bins, values);
    });
    tones.clear();
    for (std::size_t i = 0; i < bins.size(); ++i) {
        sparse_tone t;
        t.frequency = double(bins[i]);
        t.amplitude = std::complex<double>(values[i]);
        t.snr_db = 300.0; // exactly sparse: no noise floor
        tones.push_back(t);
    }
    std::sort(tones.begin(), tones.end(), [](const auto& a, const auto& b) {
        return std::norm(a.amplitude) > std::norm(b.amplitude);
    });
}

bool sparse_fft_plan::not_sparse() const
{
    return d_impl->engine ? d_impl->engine->not_sparse() : false;
}

sparse_fft_stats sparse_fft_plan::stats() const { return d_impl->stats; }

double sparse_fft_plan::noise_floor() const { return d_impl->noise_floor; }

sparse_fft_mode sparse_fft_plan::mode() const
{
    return d_impl->params.robust ? sparse_fft_mode::robust : sparse_fft_mode::exact;
}

std::int64_t sparse_fft_plan::size() const { return d_impl->params.c.n; }
std::int64_t sparse_fft_plan::k() const { return d_impl->params.k; }
gpufft::backend sparse_fft_plan::backend() const { return d_impl->used; }
int sparse_fft_plan::device_id() const { return d_impl->device_id; }
bool sparse_fft_plan::dense_fallback() const { return d_impl->params.dense; }
std::int64_t sparse_fft_plan::samples_read() const
{
    return d_impl->params.samples_read();
}

std::string sparse_fft_plan::describe() const
{
    std::string s =
        detail::describe_params(d_impl->params) + ", backend " + to_string(d_impl->used);
    const std::string extra =
        d_impl->robust ? d_impl->robust->notes() : d_impl->engine->notes();
    return extra.empty() ? s : s + ", " + extra;
}

} // namespace gpufft
} // namespace gr
