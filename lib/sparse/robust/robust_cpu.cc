/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// CPU backend of robust mode (sFFT 4.0's noisy-case algorithm): the same stages as the
// CUDA backend, in the same order, with the same permutations and shifts. Also the dense
// FFT + threshold path.

#include "core/parallel_for.h"
#include "core/worker_pool.h"
#include "sparse/common/sparse_common.h"
#include "sparse/robust/robust_backend.h"
#include <gnuradio/gpufft/dense_fft_plan.h>
#include <unordered_map>
#include <unordered_set>
#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gr {
namespace gpufft {
namespace detail {

namespace {

dense_fft_options cpu_options(int threads)
{
    dense_fft_options o;
    o.backend = backend::cpu;
    o.threads = threads;
    return o;
}

class robust_cpu final : public sparse_robust_backend
{
public:
    explicit robust_cpu(const sparse_params& p)
        : d_p(p),
          d_taps(make_window(p)),
          d_fft(p.rc.B, p.hashes(), direction::forward, cpu_options(1)),
          d_z(std::size_t(p.hashes()) * p.rc.B),
          d_Z(d_z.size()),
          d_res(2 * d_z.size()),
          d_power(std::size_t(std::min<std::int64_t>(std::int64_t(p.rc.loops) * p.rc.B,
                                                     robust_noise_samples))),
          d_pool(hardware_threads()),
          d_probe(p.c.n, p.k)
    {
    }

    void run(const std::complex<float>* x, memory where, robust_frame& out) override
    {
        if (where != memory::host)
            throw std::invalid_argument("where: the CPU backend takes host arrays only");
        const auto& rc = d_p.rc;
        hash(x);
        d_fft.execute(d_z.data(), d_Z.data());
        d_peak = 0;
        for (std::size_t i = 0; i < d_Z.size(); ++i) {
            const double re = d_Z[i].real(), im = d_Z[i].imag();
            d_res[2 * i] = re;
            d_res[2 * i + 1] = im;
            const double m = re * re + im * im;
            if (!std::isfinite(m))
                throw_non_finite();
            d_peak = std::max(d_peak, m);
        }
        d_f.clear();
        d_xr.clear();
        d_xi.clear();
        d_index.clear();

        // Outer loop (the paper's sFFT main loop): locate in every loop's buckets,
        // estimate the new frequencies, keep those above the threshold and take them out
        // of the hashes, so the next round sees what they hid.
        double P = bucket_noise();
        for (int round = 0; round < d_p.outer_rounds; ++round) {
            const std::size_t first_new = d_f.size();
            // LocateSignal in every bucket of every loop (independent: on every core),
            // then the round's new candidates, deduplicated.
            const double min_power = d_p.locate_eta * P;
            d_located.resize(std::size_t(rc.loops) * rc.B);
            spread(std::int64_t(d_located.size()),
                   4096,
                   [&](std::int64_t first, std::int64_t last) {
                       for (std::int64_t i = first; i < last; ++i) {
                           const int r = int(i / rc.B);
                           const std::int64_t b = i % rc.B;
                           const auto hash = [&](int h, double& re, double& im) {
                               const std::size_t at =
                                   2 * ((std::size_t(r) * rc.hashes + h) * rc.B + b);
                               re = d_res[at];
                               im = d_res[at + 1];
                           };
                           std::int64_t g;
                           d_located[i] = robust_locate(rc, hash, b, min_power, g)
                                              ? std::int64_t(mulmod(d_p.sigma_inv[r],
                                                                    std::uint64_t(g),
                                                                    std::uint64_t(rc.n)))
                                              : -1;
                       }
                   });
            d_cand.clear();
            d_cand_set.clear();
            for (const std::int64_t f : d_located)
                if (f >= 0 && !d_index.count(f) && d_cand_set.insert(f).second)
                    d_cand.push_back(f);
            for (const std::int64_t f : d_lobe_next)
                if (!d_index.count(f) && d_cand_set.insert(f).second)
                    d_cand.push_back(f);
            d_lobe_next.clear();
            // EstimateValues of the candidates (each reads the residual only, so on
            // every core), then the ones above the threshold are kept.
            estimate_all(d_cand, nullptr, nullptr, P);
            for (std::size_t i = 0; i < d_cand.size(); ++i) {
                const double power = d_nr[i] * d_nr[i] + d_ni[i] * d_ni[i];
                const double threshold = d_p.eta * d_noise[i];
                if (!(power > threshold) || std::int64_t(d_f.size()) >= d_p.max_found)
                    continue;
                d_index.emplace(d_cand[i], d_f.size());
                d_f.push_back(d_cand[i]);
                d_xr.push_back(d_nr[i]);
                d_xi.push_back(d_ni[i]);
                if (robust_spawns_neighbours(rc, power, threshold))
                    for (int side = 0; side < 2; ++side)
                        d_lobe_next.push_back(robust_lobe_neighbour(rc, d_cand[i], side));
            }
            if (d_f.size() == first_new)
                break;
            add_all(d_f.data() + first_new,
                    d_xr.data() + first_new,
                    d_xi.data() + first_new,
                    nullptr,
                    nullptr,
                    d_f.size() - first_new,
                    -1.0);
            if (d_p.noise_after_round(round))
                P = bucket_noise();
        }

        // EstimateValues on the final residual: every value again as the median over
        // loops, all from the same residual (as the CUDA backend does), then applied;
        // refine_passes times, so values that shared buckets stop pulling each other.
        const std::size_t found = d_f.size();
        mark_shared();
        for (int pass = 0; pass < d_p.refine_passes; ++pass) {
            estimate_all(d_f, d_xr.data(), d_xi.data(), P, d_shared.data());
            add_all(d_f.data(),
                    d_xr.data(),
                    d_xi.data(),
                    d_nr.data(),
                    d_ni.data(),
                    found,
                    1.0);
            for (std::size_t i = 0; i < found; ++i) {
                d_xr[i] = d_nr[i];
                d_xi[i] = d_ni[i];
            }
        }
        // The floor the threshold uses, from the final residual (the refine passes read
        // no noise).
        P = bucket_noise();

        // The coefficients that stand above the threshold, then tones from their peaks.
        d_bins.clear();
        d_values.clear();
        for (std::size_t i = 0; i < found; ++i) {
            const double noise = robust_value_noise(rc, d_f[i], d_p.sigma.data(), P);
            if (!(d_xr[i] * d_xr[i] + d_xi[i] * d_xi[i] > d_p.eta * noise))
                continue;
            d_bins.push_back(d_f[i]);
            d_values.emplace_back(d_xr[i], d_xi[i]);
        }
        out.tones.clear();
        out.ordered = false;
        out.near.clear();
        out.joint.clear(); // a dense redo of the last frame may have left some
        tones_from_peaks(rc, d_bins, d_values, out.tones);
        out.bin_noise = double(rc.n) * P / d_p.taps_power;
        order_tones(out.bin_noise / d_p.window_power, out);
        out.check = self_check(x, P);
    }

private:
    // HashToBins: z[h][t mod B] += G[t] w(i) x[i], i = sigma (t + offset_h) + tau; the
    // hashes are independent, so they are spread over the cores (as FFTW's are).
    void hash(const std::complex<float>* x)
    {
        const auto& rc = d_p.rc;
        const std::uint64_t n = std::uint64_t(rc.n);
        const std::int64_t hw = d_p.half_window;
        spread(d_p.hashes(),
               d_p.window >= (1 << 16) ? 1 : d_p.hashes(), // a hash of 2^16 samples pays
               [&](std::int64_t first, std::int64_t last) {
                   for (std::int64_t h = first; h < last; ++h) {
                       std::complex<float>* z = d_z.data() + std::size_t(h) * rc.B;
                       std::fill(z, z + rc.B, std::complex<float>(0, 0));
                       const std::uint64_t step = d_p.sigma[h / rc.hashes];
                       std::uint64_t idx = d_p.sample_index(int(h), -hw);
                       std::int64_t q = ((-hw) % rc.B + rc.B) % rc.B;
                       for (std::int64_t i = 0; i < d_p.window; ++i) {
                           z[q] += (d_taps[i] * robust_window_weight(rc, idx)) * x[idx];
                           idx += step;
                           if (idx >= n)
                               idx -= n;
                           if (++q == rc.B)
                               q = 0;
                       }
                   }
               });
    }

    // The noise power of a bucket: the median of |residual|^2 over every
    // robust_noise_stride()-th (loop, bucket) of the unshifted hashes, over ln 2 (the
    // median of an exponential variable). Tones hold a small share of the buckets, and
    // the ones found are already out.
    double bucket_noise()
    {
        const auto& rc = d_p.rc;
        const std::int64_t LB = std::int64_t(rc.loops) * rc.B;
        const std::int64_t stride = robust_noise_stride(LB);
        std::size_t m = 0;
        for (std::int64_t j = 0; j < LB; j += stride) {
            const std::size_t at =
                2 * std::size_t(j / rc.B * rc.hashes * rc.B + j % rc.B);
            // float, as the CUDA backend selects them
            d_power[m++] = float(d_res[at] * d_res[at] + d_res[at + 1] * d_res[at + 1]);
        }
        const auto mid = d_power.begin() + m / 2;
        std::nth_element(d_power.begin(), mid, d_power.begin() + m);
        d_raw_noise = double(*mid) / std::log(2.0);
        return precision_floor(d_raw_noise, d_peak, d_p.leak_floor);
    }

    // The self-check (robust_check.h) on the final residual: the buckets' raw median
    // floor against the probe's, and the loops whose unshifted hash keeps a bucket the
    // found coefficients do not explain (d_Z: the buckets before any subtraction).
    robust_check self_check(const std::complex<float>* x, double P)
    {
        const auto& rc = d_p.rc;
        int unexplained = 0;
        for (int r = 0; r < rc.loops; ++r) {
            const std::size_t base = std::size_t(r) * rc.hashes * rc.B;
            const double* res = d_res.data() + 2 * base;
            bool any = false;
            for (std::int64_t b = 0; b < rc.B && !any; ++b)
                any = robust_bucket_unexplained(res[2 * b] * res[2 * b] +
                                                    res[2 * b + 1] * res[2 * b + 1],
                                                double(std::norm(d_Z[base + b])),
                                                d_p.eta * P);
            unexplained += any ? 1 : 0;
        }
        const double to_bin = double(rc.n) / (d_p.taps_power * d_p.window_power);
        return robust_verdict(
            d_raw_noise * to_bin, d_probe.floor(x), unexplained, rc.loops);
    }

    // d_shared[i]: bit r set where d_f[i] shares a bucket of loop r with another found
    // coefficient (robust_value_median()). d_occ is all zeros between calls: what a
    // call counts it takes back, so a frame costs its coefficients, not loops x B.
    void mark_shared()
    {
        const auto& rc = d_p.rc;
        const int L = std::min(rc.loops, 16);
        d_occ.resize(std::size_t(L) * rc.B, 0);
        d_shared.assign(d_f.size(), 0u);
        for (int r = 0; r < L; ++r) {
            int* occ = d_occ.data() + std::size_t(r) * rc.B;
            for (const std::int64_t f : d_f)
                robust_count_buckets(
                    rc, f, d_p.sigma[r], [occ](std::int64_t b) { ++occ[b]; });
            for (std::size_t i = 0; i < d_f.size(); ++i)
                if (robust_bucket_shared(rc, d_f[i], d_p.sigma[r], occ))
                    d_shared[i] |= 1u << r;
            for (const std::int64_t f : d_f)
                robust_count_buckets(
                    rc, f, d_p.sigma[r], [occ](std::int64_t b) { --occ[b]; });
        }
    }

    // The value at f as the median over loops of (current value + the loop's least
    // squares estimate from the residual in its floor and ceil buckets), without the
    // loops set in `shared` where that moves it past the noise (robust_value_median());
    // noise: the noise power of one loop's estimate (median over loops).
    void estimate(std::int64_t f,
                  double cur_r,
                  double cur_i,
                  double P,
                  unsigned shared,
                  double& xr,
                  double& xi,
                  double& noise)
    {
        const auto& rc = d_p.rc;
        double er[16], ei[16], eg[16];
        const int L = std::min(rc.loops, 16);
        for (int r = 0; r < L; ++r) {
            const std::size_t base = 2 * std::size_t(r) * rc.hashes * rc.B;
            double a, b;
            eg[r] = robust_loop_estimate(
                rc, d_res.data() + base, f, d_p.sigma[r], d_p.tau[r], a, b);
            er[r] = cur_r + a;
            ei[r] = cur_i + b;
        }
        const double g2 = robust_median(eg, L);
        noise = robust_estimate_noise(rc, P, g2);
        robust_value_median(er, ei, L, shared, noise, eg, xr, xi);
    }

    // fn(first, last) over [0, count) split across the plan's worker threads (at least
    // `grain` items a part; small counts stay on the calling thread).
    template <typename Fn>
    void spread(std::int64_t count, std::int64_t grain, Fn&& fn)
    {
        const std::int64_t parts = std::min<std::int64_t>(
            d_pool.threads(), count / std::max<std::int64_t>(1, grain));
        if (parts <= 1) {
            fn(std::int64_t(0), count);
            return;
        }
        d_pool.run([&](int part, int all) {
            const std::int64_t used = std::min<std::int64_t>(all, parts);
            if (part < used)
                fn(count * part / used, count * (part + 1) / used);
        });
    }

    // estimate() of every f (current values cur_r/cur_i, or 0; shared[i] the loops it
    // shares, or none) into d_nr, d_ni, d_noise, spread over the cores: each reads the
    // residual only.
    void estimate_all(const std::vector<std::int64_t>& f,
                      const double* cur_r,
                      const double* cur_i,
                      double P,
                      const unsigned* shared = nullptr)
    {
        d_nr.resize(f.size());
        d_ni.resize(f.size());
        d_noise.resize(f.size());
        spread(std::int64_t(f.size()), 64, [&](std::int64_t first, std::int64_t last) {
            for (std::int64_t i = first; i < last; ++i)
                estimate(f[i],
                         cur_r ? cur_r[i] : 0.0,
                         cur_i ? cur_i[i] : 0.0,
                         P,
                         shared ? shared[i] : 0u,
                         d_nr[i],
                         d_ni[i],
                         d_noise[i]);
        });
    }

    // Adds coefficients (f[i], scale (x[i] - y[i])) to every hash's buckets they reach.
    // A loop's hashes are its own, so the loops run on separate cores.
    void add_all(const std::int64_t* f,
                 const double* xr,
                 const double* xi,
                 const double* yr,
                 const double* yi,
                 std::size_t count,
                 double scale)
    {
        spread(d_p.rc.loops, 1, [&](std::int64_t first, std::int64_t last) {
            for (std::int64_t r = first; r < last; ++r)
                for (std::size_t i = 0; i < count; ++i)
                    add(int(r),
                        f[i],
                        scale * (xr[i] - (yr ? yr[i] : 0.0)),
                        scale * (xi[i] - (yi ? yi[i] : 0.0)));
        });
    }

    // Adds the coefficient (f, X) to loop r's hashes, in the buckets it reaches.
    void add(int r, std::int64_t f, double xr, double xi)
    {
        const auto& rc = d_p.rc;
        robust_add_coefficient(rc,
                               f,
                               d_p.sigma[r],
                               d_p.tau[r],
                               xr,
                               xi,
                               [&](int h, std::int64_t b, double dr, double di) {
                                   const std::size_t at =
                                       2 * ((std::size_t(r) * rc.hashes + h) * rc.B + b);
                                   d_res[at] += dr;
                                   d_res[at + 1] += di;
                               });
    }

    sparse_params d_p;
    std::vector<float> d_taps;
    dense_fft_plan d_fft;
    std::vector<std::complex<float>> d_z, d_Z;
    std::vector<double> d_res; //!< residual hashes, interleaved re/im
    std::vector<float> d_power;
    std::vector<std::int64_t> d_f;
    std::vector<double> d_xr, d_xi;
    std::unordered_map<std::int64_t, std::size_t> d_index;
    std::vector<std::int64_t> d_located;   //!< per (loop, bucket): the frequency, or -1
    std::vector<std::int64_t> d_cand;      //!< a round's candidates
    std::vector<std::int64_t> d_lobe_next; //!< the next round's lobe neighbours
    std::unordered_set<std::int64_t> d_cand_set;
    std::vector<double> d_nr, d_ni, d_noise; //!< estimate_all's results
    std::vector<int> d_occ;                  //!< per (loop, bucket): mark_shared()
    std::vector<unsigned> d_shared;          //!< per found coefficient: mark_shared()
    double d_peak = 0;  //!< the largest |bucket|^2 before any subtraction
    worker_pool d_pool; //!< persistent: a call hands it several short jobs
    robust_floor_probe d_probe;
    double d_raw_noise = 0; //!< the last bucket_noise() before the leak_floor raise
    std::vector<std::int64_t> d_bins;
    std::vector<std::complex<double>> d_values;
};

// Dense FFT of the frame, its windowed spectrum (robust_windowed_bin()), the noise floor
// from the median bin, every bin above the threshold, tones fitted to their lobes, then
// to the unwindowed bins (refine_tones_plain()), and tones that share a lobe fitted
// together (resolve_close_tones()): the reference robust mode is
// measured against, and its path when reading fewer samples cannot reach the
// sensitivity asked for.
class dense_threshold_cpu final : public sparse_robust_backend
{
public:
    explicit dense_threshold_cpu(const sparse_params& p)
        : d_p(p),
          d_fft(p.c.n, 1, direction::forward, cpu_options(0)),
          d_xw(p.c.n),
          d_X(p.c.n),
          d_power((p.c.n + dense_noise_stride(p.c.n) - 1) / dense_noise_stride(p.c.n))
    {
    }

    void run(const std::complex<float>* x, memory where, robust_frame& out) override
    {
        if (where != memory::host)
            throw std::invalid_argument("where: the CPU backend takes host arrays only");
        const std::int64_t n = d_p.c.n;
        for (std::int64_t i = 0; i < n; ++i)
            if (!std::isfinite(x[i].real()) || !std::isfinite(x[i].imag()))
                throw_non_finite();
        d_fft.execute(x, d_X.data());
        const auto bin = [&](std::int64_t q, double& re, double& im) {
            re = d_X[q].real();
            im = d_X[q].imag();
        };
        // The median over every stride-th bin (all bins up to 2^20), as the CUDA
        // backend samples them.
        const std::int64_t stride = dense_noise_stride(n);
        float peak = 0;
        std::size_t m = 0;
        for (std::int64_t i = 0; i < n; ++i) {
            double re, im;
            robust_windowed_bin(d_p.rc, bin, i, re, im);
            d_xw[i] = std::complex<float>(float(re), float(im));
            const float p = std::norm(d_xw[i]);
            peak = std::max(peak, p);
            if (i % stride == 0)
                d_power[m++] = p;
        }
        const auto mid = d_power.begin() + m / 2;
        std::nth_element(d_power.begin(), mid, d_power.begin() + m);
        const double noise = precision_floor(double(*mid) / std::log(2.0), peak);
        const double threshold = d_p.eta * noise;
        d_bins.clear();
        d_values.clear();
        for (std::int64_t i = 0; i < n; ++i)
            if (double(std::norm(d_xw[i])) > threshold) {
                d_bins.push_back(i);
                d_values.emplace_back(d_xw[i].real(), d_xw[i].imag());
            }
        out.tones.clear();
        d_peaks.clear();
        tones_from_peaks(d_p.rc, d_bins, d_values, out.tones, &d_peaks);
        const double plain_noise = noise / d_p.window_power;
        refine_tones_plain(d_p.rc, d_X.data(), plain_noise, out.tones, &d_plain_ok);
        resolve_close_tones(d_p.rc,
                            d_X.data(),
                            plain_noise,
                            d_p.eta,
                            d_peaks,
                            d_plain_ok,
                            out.tones,
                            out.joint);
        out.bin_noise = noise;
        out.ordered = false;
        out.near.clear();
        order_tones(noise / d_p.window_power, out);
    }

private:
    sparse_params d_p;
    dense_fft_plan d_fft;
    std::vector<std::complex<float>> d_xw, d_X; //!< windowed and plain spectrum
    std::vector<float> d_power;
    std::vector<std::int64_t> d_bins;
    std::vector<std::complex<double>> d_values;
    std::vector<std::int64_t> d_peaks;     //!< per tone, its lobe's peak bin
    std::vector<unsigned char> d_plain_ok; //!< per tone, its unwindowed fit stood
};

} // namespace

std::unique_ptr<sparse_robust_backend> make_robust_cpu(const sparse_params& p)
{
    return std::make_unique<robust_cpu>(p);
}

std::unique_ptr<sparse_robust_backend> make_dense_threshold_cpu(const sparse_params& p)
{
    return std::make_unique<dense_threshold_cpu>(p);
}

} // namespace detail
} // namespace gpufft
} // namespace gr
