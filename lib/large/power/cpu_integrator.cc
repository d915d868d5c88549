/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CPU path for frames that fit in memory beside their FFTW work array: per frame,
// one VOLK pass that windows the frame into the work array, one in-place FFTW execute
// (a measured plan, kept in the wisdom file if one is given), and one pass that squares,
// band-reduces and accumulates (VOLK |X|^2 over cache-sized chunks, channels summed in
// double straight into the accumulator). GNU Radio's stock chain (fft_vcc,
// complex_to_mag_squared, integrate_ff) is three passes after the FFT in three threads;
// the large-FFT engine's host path (large_fft_plan) adds a finiteness pass, an estimated
// plan and a per-bin reduction, which cost it a factor of about 2 at 2^16
// (docs/performance.md).

#include "core/fftw_lock.h"
#include "large/power/fftw_wisdom.h"
#include "large/power/integrator_backend.h"
#include <fftw3.h>
#include <volk/volk.h>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>

namespace gr {
namespace gpufft {
namespace detail {

namespace {

using i64 = std::int64_t;

// Bins squared per VOLK call: 16 KiB of floats stays in L1 while it is summed.
constexpr i64 chunk_bins = 4096;

struct volk_deleter {
    void operator()(void* p) const { volk_free(p); }
};
template <typename T>
using volk_ptr = std::unique_ptr<T[], volk_deleter>;

template <typename T>
volk_ptr<T> volk_array(i64 n)
{
    void* p = volk_malloc(std::size_t(n) * sizeof(T), volk_get_alignment());
    if (!p)
        throw std::bad_alloc();
    return volk_ptr<T>(static_cast<T*>(p));
}

// FFTW_MEASURE finds plans about twice as fast as FFTW_ESTIMATE at 2^16-2^20 on this
// kind of CPU, but measuring takes about a second per size (saved in the options'
// wisdom file when given: fftw_wisdom.h), so it is used only up to this size, where a
// second is all it costs.
constexpr i64 largest_measured = i64(1) << 20;

bool measure(i64 n, power::fftw_planning planner)
{
    if (planner == power::fftw_planning::estimate)
        return false;
    if (planner == power::fftw_planning::measure)
        return true;
    return n <= largest_measured;
}

class cpu_integrator final : public spectrum_integrator::impl
{
public:
    cpu_integrator(const power::band_reducer& band,
                   const power::spectral_window& window,
                   int fft_threads,
                   std::size_t budget,
                   power::fftw_planning planner,
                   const std::string& wisdom)
        : impl(band, window),
          d_n(band.fft_size()),
          d_fft_threads(fft_threads),
          d_budget(budget),
          d_work(volk_array<std::complex<float>>(d_n)),
          d_scratch(volk_array<float>(chunk_bins)),
          d_acc(std::size_t(band.output_bins()))
    {
        if (!window.is_rectangular()) {
            // Stored in float: what a float frame is multiplied by (the recurrence's
            // 1e-12 is lost in the product anyway).
            d_window = volk_array<float>(d_n);
            for (i64 i = 0; i < d_n; ++i)
                d_window[std::size_t(i)] = float(window.value(i));
        }
        init_fftw_threads();
        std::lock_guard<std::mutex> lock(fftw_planner_mutex());
        const std::string& wisdom_path = wisdom; // "" keeps no file
        power::import_fftwf_wisdom_once(wisdom_path);
        d_measured = measure(d_n, planner);
        fftwf_plan_with_nthreads(d_fft_threads);
        auto* w = reinterpret_cast<fftwf_complex*>(d_work.get());
        // FFTW_MEASURE overwrites the array while it plans: nothing is in it yet.
        // WISDOM_ONLY first tells whether the wisdom already has this size.
        bool known = false;
        if (d_measured) {
            d_plan = fftwf_plan_dft_1d(
                int(d_n), w, w, FFTW_FORWARD, FFTW_MEASURE | FFTW_WISDOM_ONLY);
            known = d_plan != nullptr;
            if (!d_plan)
                d_plan = fftwf_plan_dft_1d(int(d_n), w, w, FFTW_FORWARD, FFTW_MEASURE);
        } else {
            d_plan = fftwf_plan_dft_1d(int(d_n), w, w, FFTW_FORWARD, FFTW_ESTIMATE);
        }
        if (!d_plan)
            throw std::runtime_error(
                "spectrum_integrator: FFTW could not plan fft_size " +
                std::to_string(d_n));
        if (d_measured && !known)
            power::export_fftwf_wisdom(wisdom_path);
    }

    ~cpu_integrator() override
    {
        std::lock_guard<std::mutex> lock(fftw_planner_mutex());
        fftwf_destroy_plan(d_plan);
    }

    bool accumulate(std::complex<float>* x, accumulate_op op) override
    {
        std::complex<float>* w = d_work.get();
        if (d_window)
            volk_32fc_32f_multiply_32fc(reinterpret_cast<lv_32fc_t*>(w),
                                        reinterpret_cast<const lv_32fc_t*>(x),
                                        d_window.get(),
                                        unsigned(d_n));
        else
            std::memcpy(w, x, std::size_t(d_n) * sizeof(*w));
        fftwf_execute(d_plan);
        // Bin 0 (DC) sums every windowed sample, so a NaN or infinity anywhere in the
        // frame makes it non-finite (w * inf is inf or NaN even where w is 0): a bad
        // frame is told before the accumulator is touched, without a pass over the
        // input, and the good ones are summed straight into it.
        if (!std::isfinite(w[0].real()) || !std::isfinite(w[0].imag()))
            return false;
        double* acc = d_acc.data();
        switch (op) {
        case accumulate_op::store:
            reduce(w, [acc](std::size_t c, double v) { acc[c] = v; });
            break;
        case accumulate_op::add:
            reduce(w, [acc](std::size_t c, double v) { acc[c] += v; });
            break;
        case accumulate_op::max:
            reduce(w, [acc](std::size_t c, double v) { acc[c] = std::max(acc[c], v); });
            break;
        }
        return true;
    }

    void read(double* acc) override { std::copy(d_acc.begin(), d_acc.end(), acc); }

    gpufft::backend backend() const override { return gpufft::backend::cpu; }
    int device_id() const override { return -1; }
    std::size_t memory_budget() const override { return d_budget; }
    bool on_device() const override { return false; }
    std::string describe() const override
    {
        return "spectrum_integrator: CPU, one in-place FFTW execute per frame (" +
               std::string(d_measured ? "measured" : "estimated") + " plan, " +
               std::to_string(d_fft_threads) +
               " threads), window and |X|^2 + band reduction in one VOLK pass each\n";
    }

private:
    // Channel powers of the spectrum `X`, each handed to put(channel, power) once.
    template <typename Put>
    void reduce(const std::complex<float>* X, Put put)
    {
        const i64 half = d_n / 2;
        const i64 start = band.band_start(), stop = band.band_stop();
        const i64 D = band.decimation();
        const double per_bin = scale / double(D);
        float* sq = d_scratch.get();
        std::size_t c = 0;
        double partial = 0.0;
        i64 filled = 0; // bins of channel c summed so far
        // Centred bin p is FFT bin p + (n - half) below half and p - half above: two
        // contiguous runs of the FFT output, read in centred order.
        for (i64 p = start; p < stop;) {
            const i64 run_end = p < half ? std::min(stop, half) : stop;
            const i64 len = std::min(chunk_bins, run_end - p);
            const i64 at = p < half ? p + (d_n - half) : p - half;
            volk_32fc_magnitude_squared_32f(
                sq, reinterpret_cast<const lv_32fc_t*>(X + at), unsigned(len));
            if (D == 1) {
                for (i64 i = 0; i < len; ++i)
                    put(c++, per_bin * double(sq[i]));
            } else {
                for (i64 i = 0; i < len;) {
                    const i64 take = std::min(D - filled, len - i);
                    partial += sum(sq + i, take);
                    filled += take;
                    i += take;
                    if (filled == D) {
                        put(c++, per_bin * partial);
                        partial = 0.0;
                        filled = 0;
                    }
                }
            }
            p += len;
        }
    }

    static double sum(const float* v, i64 n)
    {
        // Four partial sums in double: vectorisable, and exact enough for 2^32 terms.
        double s[4] = { 0, 0, 0, 0 };
        i64 i = 0;
        for (; i + 4 <= n; i += 4)
            for (int k = 0; k < 4; ++k)
                s[k] += double(v[i + k]);
        for (; i < n; ++i)
            s[0] += double(v[i]);
        return (s[0] + s[1]) + (s[2] + s[3]);
    }

    const i64 d_n;
    const int d_fft_threads;
    const std::size_t d_budget;
    volk_ptr<std::complex<float>> d_work;
    volk_ptr<float> d_window; // null for the rectangular window
    volk_ptr<float> d_scratch;
    std::vector<double> d_acc;
    fftwf_plan d_plan = nullptr;
    bool d_measured = false;
};

} // namespace

std::uint64_t cpu_integrator_bytes(std::int64_t fft_size, bool windowed)
{
    return std::uint64_t(fft_size) *
           (sizeof(std::complex<float>) + (windowed ? sizeof(float) : 0));
}

std::unique_ptr<spectrum_integrator::impl>
make_cpu_integrator(const power::band_reducer& band,
                    const power::spectral_window& window,
                    int threads,
                    std::size_t budget,
                    power::fftw_planning planner,
                    const std::string& wisdom)
{
    const i64 n = band.fft_size();
    const std::uint64_t need = cpu_integrator_bytes(n, !window.is_rectangular());
    if (n > largest_cpu_fused || (budget != 0 && budget < need))
        return nullptr;
    // Threads pay in FFTW from about 2^18 points; below that, starting and joining
    // them costs more than the transform saves (2^16 on 2 cores: 99 us on one thread,
    // 142 us on two).
    const int fft_threads = n >= (i64(1) << 18) ? std::max(1, threads) : 1;
    return std::make_unique<cpu_integrator>(band,
                                            window,
                                            fft_threads,
                                            budget != 0 ? budget : std::size_t(need),
                                            planner,
                                            wisdom);
}

} // namespace detail
} // namespace gpufft
} // namespace gr
