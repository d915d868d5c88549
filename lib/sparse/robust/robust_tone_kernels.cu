/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Robust mode's tones on the device (robust_kernels.h): the coefficients above the
// threshold, the peaks of their lobes (thread per coefficient) and a fit per peak (warp
// per peak).

#include "cuda/cuda_resources.h"
#include "sparse/robust/robust_kernels.cuh"
#include <cuda_runtime.h>

namespace gr {
namespace gpufft {
namespace detail {

using namespace robust_kernels;

namespace {

__global__ void threshold_kernel(const __grid_constant__ robust_device_state s)
{
    const long long count = s.counts[1];
    for (long long i = thread_index(); i < count; i += thread_count()) {
        const double noise = robust_value_noise(s.c, s.found_f[i], s.sigma, s.scalars[0]);
        const double vr = s.found_x[2 * i], vi = s.found_x[2 * i + 1];
        s.above[i] = (vr * vr + vi * vi > s.eta * noise) ? 1 : 0;
    }
}

/*!
 * Coefficient j - lobe of the main lobe around found coefficient i: the accepted
 * coefficient at bin found_f[i] + j - lobe standing above the threshold, if any. False
 * when it is larger than i's (ties: the lower bin), so that i is not the lobe's peak.
 */
__device__ bool lobe_entry(const robust_device_state& s,
                           long long i,
                           int j,
                           double& yr,
                           double& yi,
                           bool& present)
{
    const int h = s.c.lobe;
    yr = yi = 0;
    present = false;
    if (j == h) {
        present = true;
        yr = s.found_x[2 * i];
        yi = s.found_x[2 * i + 1];
        return true;
    }
    long long b = (s.found_f[i] + j - h) % s.c.n;
    if (b < 0)
        b += s.c.n;
    const long long slot = table_find(s.keys, s.table_mask, (unsigned long long)b);
    if (slot < 0 || !(s.tags[slot] & 1u))
        return true;
    const int k = s.slot_found[slot];
    if (k < 0 || !s.above[k])
        return true;
    const double p =
        s.found_x[2 * i] * s.found_x[2 * i] + s.found_x[2 * i + 1] * s.found_x[2 * i + 1];
    yr = s.found_x[2 * k];
    yi = s.found_x[2 * k + 1];
    const double q = yr * yr + yi * yi;
    if (q > p || (q == p && j < h))
        return false;
    present = true;
    return true;
}

// Thread per found coefficient: is it above the threshold and the largest of its lobe?
// The peaks go to a list for fit_kernel.
__global__ void peak_kernel(const __grid_constant__ robust_device_state s)
{
    const long long found = s.counts[1];
    int* count = s.counts + robust_count_slots(s.rounds) - 1;
    for (long long i = thread_index(); i < found; i += thread_count()) {
        if (!s.above[i])
            continue;
        bool peak = true;
        for (int j = 0; j <= 2 * s.c.lobe && peak; ++j) {
            double yr, yi;
            bool present;
            peak = lobe_entry(s, i, j, yr, yi, present);
        }
        if (peak)
            s.peaks[atomicAdd(count, 1)] = int(i);
    }
}

// A warp per peak: lanes gather the lobe, the warp fits it (warp_fit_tone), lane 0
// appends the tone.
__global__ void fit_kernel(const __grid_constant__ robust_device_state s)
{
    const int lane = threadIdx.x & 31;
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        s.header->bad = s.counts[0];
        s.header->found = s.counts[1];
        s.header->bright = s.counts[2 + s.rounds];
        s.header->located = s.counts[2 + 2 * s.rounds + 1];
        s.header->noise = s.scalars[0];
    }
    const int peaks = s.counts[robust_count_slots(s.rounds) - 1];
    constexpr int L = 2 * robust_window_terms + 1;
    for (long long w = warp_index(); w < peaks; w += warp_count()) {
        const long long i = s.peaks[w];
        double yr = 0, yi = 0;
        bool present = false;
        if (lane <= 2 * s.c.lobe)
            lobe_entry(s, i, lane, yr, yi, present);
        double lr[L], li[L];
        unsigned char lp[L];
#pragma unroll
        for (int j = 0; j < L; ++j) {
            lr[j] = __shfl_sync(0xffffffffu, yr, j);
            li[j] = __shfl_sync(0xffffffffu, yi, j);
            lp[j] = (unsigned char)__shfl_sync(0xffffffffu, int(present), j);
        }
        double delta, ar, ai;
        warp_fit_tone(s.c, lr, li, lp, delta, ar, ai);
        if (lane == 0)
            append_tone(s.header, s.tones, s.tone_cap, s.c, s.found_f[i], delta, ar, ai);
    }
}

} // namespace

void launch_robust_tones(const robust_device_state& s, void* stream)
{
    auto st = static_cast<cudaStream_t>(stream);
    threshold_kernel<<<stride_blocks(s.max_found, 128), 128, 0, st>>>(s);
    check_launch();
    peak_kernel<<<stride_blocks(s.max_found, 128), 128, 0, st>>>(s);
    check_launch();
    fit_kernel<<<warp_blocks(s.max_found, 128), 128, 0, st>>>(s);
    check_launch();
}

} // namespace detail
} // namespace gpufft
} // namespace gr
