/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The clusters the joint fit takes: which tones share a lobe, the bins they span, the
// leakage of the tones outside taken out, and a fit's tones and model read back.
// Written once for host and device, like robust_math.h.

#ifndef INCLUDED_GPUFFT_ROBUST_PAIR_CLUSTERS_H
#define INCLUDED_GPUFFT_ROBUST_PAIR_CLUSTERS_H

#include "sparse/robust/robust_pair_fit.h"

namespace gr {
namespace gpufft {
namespace detail {

//! The joint fit runs where asked (sparse_fft_options::resolve_close_tones), with a time
//! window (the lobes it resolves are the window's) and for frames long enough that a
//! cluster's bins and its neighbours' do not wrap around.
GPUFFT_HD inline bool robust_pair_enabled(const robust_consts& c)
{
    return c.joint_fit && c.window_terms > 0 && c.n >= 1024;
}

/*!
 * The cluster whose lowest peak is at bin b: false (0) when another peak lies up to
 * robust_pair_gap bins below b (b is not its lowest), else its tones in order of their
 * peaks, each peak at most robust_pair_gap above the last: members[i] (find(bin): the
 * tone whose peak is that bin, or -1) at offset[i] bins above b. Returns the count, or
 * -1 for a cluster of more than robust_pair_max_tones.
 */
template <typename Find>
GPUFFT_HD inline int robust_pair_members(std::int64_t b,
                                         const Find& find,
                                         long long* members,
                                         std::int64_t* offset)
{
    for (int s = 1; s <= robust_pair_gap; ++s)
        if (find(b - s) >= 0)
            return 0;
    members[0] = find(b);
    offset[0] = 0;
    if (members[0] < 0)
        return 0;
    int m = 1;
    for (;;) {
        long long next = -1;
        int s = 1;
        for (; s <= robust_pair_gap && next < 0; ++s)
            next = find(b + offset[m - 1] + s);
        if (next < 0)
            return m;
        if (m == robust_pair_max_tones)
            return -1;
        members[m] = next;
        offset[m] = offset[m - 1] + (s - 1);
        ++m;
    }
}

//! The bins a cluster's fit reads: margin + 1 around the peaks, `span` bins apart.
GPUFFT_HD inline int robust_pair_window(std::int64_t span)
{
    return int(span) + 2 * robust_pair_margin + 3;
}

//! Frequency f as an offset from bin b0, within half a frame of it.
GPUFFT_HD inline double
robust_pair_offset(const robust_consts& c, double f, std::int64_t b0)
{
    const double N = double(c.n);
    double x = fmod(f - double(b0), N);
    x = x < -0.5 * N ? x + N : (x >= 0.5 * N ? x - N : x);
    return x;
}

/*!
 * A tone outside the cluster at frequency f, amplitude A, taken out of the window's bins
 * j = first, first + stride, ... (Y_j -= B g(j - x), B = A exp(i pi x (n-1)/n), x its
 * offset); what was taken out is added to (lr, li).
 */
GPUFFT_HD inline void robust_pair_subtract(const robust_consts& c,
                                           robust_pair_work& w,
                                           int W,
                                           std::int64_t b0,
                                           double f,
                                           double ar,
                                           double ai,
                                           double* lr,
                                           double* li,
                                           int first = 0,
                                           int stride = 1)
{
    const double x = robust_pair_offset(c, f, b0);
    double pr, pi;
    robust_pair_phase(c.n, x, pr, pi);
    const double br = ar * pr - ai * pi, bi = ar * pi + ai * pr;
    for (int j = first; j < W; j += stride) {
        double g, dg;
        robust_pair_kernel(c.n, double(j) - x, g, dg);
        w.yr[j] -= br * g;
        w.yi[j] -= bi * g;
        lr[j] += br * g;
        li[j] += bi * g;
    }
}

//! The leakage taken out of the window's bins is small enough to trust
//! (robust_pair_guard).
GPUFFT_HD inline bool robust_pair_leak_ok(const double* leak, int W, double noise)
{
    double most = 0;
    for (int j = 0; j < W; ++j)
        most = leak[j] > most ? leak[j] : most;
    return most <= robust_pair_guard * noise;
}

//! A fitted tone (offset d from b0, B with the phase taken out) as frequency in [0, n)
//! and amplitude A.
GPUFFT_HD inline void robust_pair_tone(const robust_consts& c,
                                       std::int64_t b0,
                                       double d,
                                       double br,
                                       double bi,
                                       double& f,
                                       double& ar,
                                       double& ai)
{
    const double N = double(c.n);
    f = fmod(double(b0) + d, N);
    f = f < 0 ? f + N : (f >= N ? f - N : f);
    double pr, pi;
    robust_pair_phase(c.n, d, pr, pi);
    ar = br * pr + bi * pi; // B conj(phase)
    ai = bi * pr - br * pi;
}

/*!
 * A tone whose unwindowed fit stood may still hide another in its window lobe: one on
 * an integer bin 3-4 bins away puts nothing into the fit's 7 bins. So the fit's
 * residual is also taken over the robust_pair_hint bins on each side (the joint fit's
 * window for one tone); above robust_pair_residual() of them, the tone goes to a joint
 * fit. robust_pair_model(): what the tone (frequency f, amplitude A) puts into bin b.
 */
constexpr int robust_pair_hint = robust_pair_margin + 1;

GPUFFT_HD inline void robust_pair_model(const robust_consts& c,
                                        std::int64_t b,
                                        double f,
                                        double ar,
                                        double ai,
                                        double& mr,
                                        double& mi)
{
    const double nu = -robust_pair_offset(c, f, b); // b - f, near 0
    double g, dg, pr, pi;
    robust_pair_kernel(c.n, nu, g, dg);
    robust_pair_phase(c.n, nu, pr, pi); // D(nu) = conj(phase) g
    mr = g * (ar * pr + ai * pi);
    mi = g * (ai * pr - ar * pi);
}

GPUFFT_HD inline bool robust_pair_quiet(double residual, double noise)
{
    return residual <= noise * robust_pair_residual(2 * robust_pair_hint + 1, 1);
}

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_ROBUST_PAIR_CLUSTERS_H */
