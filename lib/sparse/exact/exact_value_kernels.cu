/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Exact mode's device stages after the location (sparse_kernels.h): values (the median
// over hashes, then CGLS on the normal equations, in double: the CG sums reach 1e-40),
// the residual check and the selection of the k largest. Thread per tone, per (tone,
// bucket) or per bucket; the selection is one block.

#include "cuda/cuda_check.h"
#include "sparse/exact/exact_kernels.cuh"
#include <algorithm>

namespace gr {
namespace gpufft {
namespace detail {
namespace sparse_kernels {
namespace {

__device__ inline double median_in_place(double* v, int count)
{
    for (int i = 1; i < count; ++i) { // insertion sort: count <= 96
        const double t = v[i];
        int j = i - 1;
        while (j >= 0 && v[j] > t) {
            v[j + 1] = v[j];
            --j;
        }
        v[j + 1] = t;
    }
    return count % 2 ? v[count / 2] : 0.5 * (v[count / 2 - 1] + v[count / 2]);
}

struct value_state {
    double2* x;    // current values (the peeling's first estimates are in found_x)
    double2* resp; // [tone][per]: unit tone's response in each bucket it reaches
    int* at;       // [tone][per]: that bucket's index in the hash array
    int per;       // loops * 3 * levels
    double2* R;    // residual buckets (double: the CG sums reach 1e-40)
    double2* q;    // A p
    double2* s;    // A^H R
    double2* p[2]; // search direction, ping-pong: iteration it writes p[it % 2]
    double* gamma; // gamma[it] = |s|^2 before iteration it
    double* qq;    // qq[it] = |A p|^2 in iteration it
    // The residual check (step_kernel's last iteration, vouch_kernel, select_kernel).
    double* energy; // [0] hashed energy (peak_kernel), [1] residual energy
    int* keep;      // per tone: vouched for (written only if the frame is not sparse)
    double2* vm;    // per tone: median of its per-hash estimates (its value then)
};

/*!
 * Values, step 1: per hash, X + residual / (unit tone's response), and the median over
 * hashes of the real and imaginary parts. Also tabulates each tone's responses for the
 * least-squares step.
 */
__global__ void median_kernel(sparse_consts c,
                              const float2* __restrict__ Z,
                              const unsigned long long* __restrict__ sigma,
                              const unsigned long long* __restrict__ tau,
                              peel_state s,
                              value_state v)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= min(*s.count, s.max_found))
        return;
    double er[16 * sparse_max_levels], ei[16 * sparse_max_levels];
    const long long f = s.found_f[i];
    const double2 x = s.found_x[i];
    int m = 0, e = 0;
    for (int r = 0; r < c.loops; ++r) {
        const long long g = (long long)mulmod(sigma[r], (unsigned long long)f, c.n);
        const long long b0 = own_bucket(c, g);
        for (int db = -1; db <= 1; ++db) {
            const long long b = (b0 + db + c.B) % c.B;
            for (int j = 0; j < c.levels; ++j, ++m) {
                double ur, ui;
                tone_in_bucket(c,
                               f,
                               g,
                               1.0,
                               0.0,
                               b,
                               (unsigned long long)c.offset[j],
                               tau[r],
                               ur,
                               ui);
                const int at = (r * c.levels + j) * int(c.B) + int(b);
                v.resp[(long long)i * v.per + m] = make_double2(ur, ui);
                v.at[(long long)i * v.per + m] = at;
                if (db == 0) {
                    const float2 z = Z[at];
                    const double den = ur * ur + ui * ui;
                    er[e] = x.x + (double(z.x) * ur + double(z.y) * ui) / den;
                    ei[e] = x.y + (double(z.y) * ur - double(z.x) * ui) / den;
                    ++e;
                }
            }
        }
    }
    v.x[i] = make_double2(median_in_place(er, e), median_in_place(ei, e));
}

//! R = Z (in double), q = 0.
__global__ void
residual_kernel(const float2* __restrict__ Z, long long count, double2* R, double2* q)
{
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < count) {
        R[i] = make_double2(Z[i].x, Z[i].y);
        q[i] = make_double2(0, 0);
    }
}

//! R += A (first estimates - medians): the residual of the median values.
__global__ void median_residual_kernel(peel_state s, value_state v)
{
    const long long id = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    const long long i = id / v.per;
    if (i >= min(*s.count, s.max_found))
        return;
    const double2 d = make_double2(s.found_x[i].x - v.x[i].x, s.found_x[i].y - v.x[i].y);
    const double2 u = v.resp[id];
    double2* r = &v.R[v.at[id]];
    atomicAdd(&r->x, u.x * d.x - u.y * d.y);
    atomicAdd(&r->y, u.x * d.y + u.y * d.x);
}

//! s = A^H R, gamma[slot] = |s|^2.
__global__ void adjoint_kernel(peel_state s, value_state v, int slot)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    double g = 0;
    if (i < min(*s.count, s.max_found)) {
        double ar = 0, ai = 0;
        for (int m = 0; m < v.per; ++m) {
            const double2 u = v.resp[(long long)i * v.per + m];
            const double2 r = v.R[v.at[(long long)i * v.per + m]];
            ar += u.x * r.x + u.y * r.y;
            ai += u.x * r.y - u.y * r.x;
        }
        v.s[i] = make_double2(ar, ai);
        g = ar * ar + ai * ai;
    }
    for (int o = 16; o; o >>= 1)
        g += __shfl_xor_sync(0xffffffffu, g, o);
    if ((threadIdx.x & 31) == 0 && g != 0)
        atomicAdd(&v.gamma[slot], g);
}

/*!
 * CG iteration `it`, part 1: the new direction p = s + (gamma[it] / gamma[it-1]) p_old
 * (just s at it = 0), and q = A p (q is zero on entry).
 */
__global__ void forward_kernel(peel_state s, value_state v, int it)
{
    const long long id = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    const long long i = id / v.per;
    if (i >= min(*s.count, s.max_found))
        return;
    double2 p = v.s[i];
    if (it > 0) {
        const double g = v.gamma[it - 1];
        const double beta = g > 0 ? v.gamma[it] / g : 0.0;
        const double2 old = v.p[(it - 1) % 2][i];
        p.x += beta * old.x;
        p.y += beta * old.y;
    }
    if (id % v.per == 0)
        v.p[it % 2][i] = p;
    const double2 u = v.resp[id];
    double2* q = &v.q[v.at[id]];
    atomicAdd(&q->x, u.x * p.x - u.y * p.y);
    atomicAdd(&q->y, u.x * p.y + u.y * p.x);
}

//! qq[it] = |q|^2.
__global__ void norm_kernel(value_state v, long long count, int it)
{
    double a = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < count;
         i += (long long)gridDim.x * blockDim.x) {
        const double2 q = v.q[i];
        a += q.x * q.x + q.y * q.y;
    }
    for (int o = 16; o; o >>= 1)
        a += __shfl_xor_sync(0xffffffffu, a, o);
    if ((threadIdx.x & 31) == 0 && a != 0)
        atomicAdd(&v.qq[it], a);
}

/*!
 * alpha = gamma / qq: x += alpha p, R -= alpha q, and q = 0 for the next iteration. The
 * last iteration also sums |R|^2, the residual energy of the residual check.
 */
template <bool last>
__global__ void step_kernel(peel_state s, value_state v, long long count, int it)
{
    const double qq = v.qq[it];
    const double alpha = qq > 0 ? v.gamma[it] / qq : 0.0;
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    double e = 0;
    if (i < count) {
        const double2 q = v.q[i];
        double2 r = v.R[i];
        r.x -= alpha * q.x;
        r.y -= alpha * q.y;
        v.R[i] = r;
        v.q[i] = make_double2(0, 0);
        e = r.x * r.x + r.y * r.y;
    }
    if (i < min(*s.count, s.max_found)) {
        const double2 p = v.p[it % 2][i];
        v.x[i].x += alpha * p.x;
        v.x[i].y += alpha * p.y;
    }
    if constexpr (last) {
        e = block_sum(e);
        if (threadIdx.x == 0 && e != 0)
            atomicAdd(&v.energy[1], e);
    }
}

//! The residual check's verdict on the frame: its residual energy exceeds
//! sparse_residual_tol of the energy hashed.
__device__ __forceinline__ bool frame_not_sparse(const value_state& v)
{
    return v.energy[1] > sparse_residual_tol * v.energy[0];
}

/*!
 * The residual check of each tone, in a frame that is not exactly sparse (otherwise the
 * kernel returns at once): sparse_cpu.cc's vouch(). The estimate from each hash's own
 * bucket, E = x + R / response, their median V (real and imaginary parts apart), and
 * whether more than half of the loops have every level's E within sparse_vouch_tol |V| of
 * V: keep[i], with V its value (vm[i]).
 */
__global__ void vouch_kernel(sparse_consts c, peel_state s, value_state v)
{
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (!frame_not_sparse(v) || i >= min(*s.count, s.max_found))
        return;
    const int H = c.loops * c.levels;
    const double2 x = v.x[i];
    double er[16 * sparse_max_levels], ei[16 * sparse_max_levels];
    auto estimate = [&](int r, int j) {
        const long long m = i * v.per + (3 * r + 1) * c.levels + j; // own bucket
        const double2 u = v.resp[m];
        const double2 rr = v.R[v.at[m]];
        const double den = u.x * u.x + u.y * u.y;
        return make_double2(x.x + (rr.x * u.x + rr.y * u.y) / den,
                            x.y + (rr.y * u.x - rr.x * u.y) / den);
    };
    for (int r = 0; r < c.loops; ++r)
        for (int j = 0; j < c.levels; ++j) {
            const double2 e = estimate(r, j);
            er[r * c.levels + j] = e.x;
            ei[r * c.levels + j] = e.y;
        }
    const double vr = median_in_place(er, H), vi = median_in_place(ei, H);
    const double tol2 = sparse_vouch_tol * sparse_vouch_tol * (vr * vr + vi * vi);
    int agree = 0;
    for (int r = 0; r < c.loops; ++r) {
        bool ok = true;
        for (int j = 0; j < c.levels; ++j) { // E again: er / ei are sorted now
            const double2 e = estimate(r, j);
            const double dr = e.x - vr, di = e.y - vi;
            ok = ok && dr * dr + di * di <= tol2;
        }
        agree += ok ? 1 : 0;
    }
    v.keep[i] = 2 * agree > c.loops ? 1 : 0;
    v.vm[i] = make_double2(vr, vi);
}

__device__ __forceinline__ unsigned int value_key(double2 x)
{
    return __float_as_uint(float(x.x * x.x + x.y * x.y)); // >= 0: orders as uint
}

/*!
 * The k largest located tones, by an exact radix select on |X|^2 (four 8-bit passes
 * over at most max_found keys, in one block): linear time, no sort. Writes the
 * host-visible result. A frame that fails the residual check (frame_not_sparse) is
 * flagged, and only its vouched-for tones take part, with their median estimates as
 * values (vouch_kernel).
 */
__global__ void select_kernel(peel_state s,
                              value_state v,
                              const int* bad,
                              int k,
                              out_header* hdr,
                              long long* out_f,
                              float2* out_x)
{
    __shared__ unsigned int hist[256];
    __shared__ unsigned int s_prefix;
    __shared__ int s_remaining, s_slot, s_kept;
    const int found = min(*s.count, s.max_found);
    const bool not_sparse = frame_not_sparse(v);
    auto kept = [&](int i) { return !not_sparse || v.keep[i] != 0; };
    auto value = [&](int i) { return not_sparse ? v.vm[i] : v.x[i]; };
    auto emit = [&](int at, int i) {
        const double2 x = value(i);
        out_f[at] = s.found_f[i];
        out_x[at] = make_float2(float(x.x), float(x.y));
    };
    if (threadIdx.x == 0) {
        hdr->bad = *bad;
        hdr->not_sparse = not_sparse ? 1 : 0;
        hdr->reserved = 0;
        s_kept = 0;
        s_slot = 0;
    }
    __syncthreads();
    int candidates = found;
    if (not_sparse) {
        for (int i = threadIdx.x; i < found; i += blockDim.x)
            if (kept(i))
                atomicAdd(&s_kept, 1);
        __syncthreads();
        candidates = s_kept;
    }
    if (candidates <= k) {
        for (int i = threadIdx.x; i < found; i += blockDim.x)
            if (kept(i))
                emit(not_sparse ? atomicAdd(&s_slot, 1) : i, i);
        if (threadIdx.x == 0)
            hdr->count = candidates;
        return;
    }
    unsigned int prefix = 0, mask = 0;
    int remaining = k;
    for (int shift = 24; shift >= 0; shift -= 8) {
        for (int i = threadIdx.x; i < 256; i += blockDim.x)
            hist[i] = 0;
        __syncthreads();
        for (int i = threadIdx.x; i < found; i += blockDim.x) {
            if (!kept(i))
                continue;
            const unsigned int key = value_key(value(i));
            if ((key & mask) == prefix)
                atomicAdd(&hist[(key >> shift) & 255u], 1u);
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            int d = 255;
            for (; d > 0; --d) {
                if (int(hist[d]) >= remaining)
                    break;
                remaining -= int(hist[d]);
            }
            s_prefix = prefix | (unsigned(d) << shift);
            s_remaining = remaining;
        }
        __syncthreads();
        prefix = s_prefix;
        remaining = s_remaining;
        mask |= 255u << shift;
        __syncthreads();
    }
    // prefix is the k-th largest key; take every key above it, then `remaining` equal
    // ones.
    for (int i = threadIdx.x; i < found; i += blockDim.x)
        if (kept(i) && value_key(value(i)) > prefix)
            emit(atomicAdd(&s_slot, 1), i);
    __syncthreads();
    for (int i = threadIdx.x; i < found; i += blockDim.x) {
        if (kept(i) && value_key(value(i)) == prefix) {
            const int at = atomicAdd(&s_slot, 1);
            if (at < k)
                emit(at, i);
        }
    }
    if (threadIdx.x == 0)
        hdr->count = k;
}

value_state values_of(const sparse_device_state& s)
{
    return value_state{ reinterpret_cast<double2*>(s.x),
                        reinterpret_cast<double2*>(s.resp),
                        s.at,
                        s.per,
                        reinterpret_cast<double2*>(s.R),
                        reinterpret_cast<double2*>(s.q),
                        reinterpret_cast<double2*>(s.s),
                        { reinterpret_cast<double2*>(s.p[0]),
                          reinterpret_cast<double2*>(s.p[1]) },
                        s.gamma,
                        s.qq,
                        s.energy,
                        s.keep,
                        reinterpret_cast<double2*>(s.vm) };
}

} // namespace
} // namespace sparse_kernels

namespace sk = sparse_kernels;

void launch_sparse_values(const sparse_device_state& s, void* stream)
{
    const auto& c = s.c;
    auto st = static_cast<cudaStream_t>(stream);
    const sk::peel_state ps = sk::peel_of(s);
    const sk::value_state v = sk::values_of(s);
    const auto* Z = reinterpret_cast<const float2*>(s.Z);
    const long long HB = (long long)c.loops * c.levels * c.B;
    const unsigned tgrid = unsigned((s.max_found + 127) / 128);
    const unsigned mgrid = unsigned(((long long)s.max_found * s.per + 255) / 256);
    const unsigned bgrid = unsigned((HB + 255) / 256);
    sk::median_kernel<<<tgrid, 128, 0, st>>>(c, Z, s.sigma, s.tau, ps, v);
    GPUFFT_CUDA_CHECK_LAUNCH();
    sk::residual_kernel<<<bgrid, 256, 0, st>>>(Z, HB, v.R, v.q);
    GPUFFT_CUDA_CHECK_LAUNCH();
    sk::median_residual_kernel<<<mgrid, 256, 0, st>>>(ps, v);
    GPUFFT_CUDA_CHECK_LAUNCH();
    sk::adjoint_kernel<<<tgrid, 128, 0, st>>>(ps, v, 0);
    GPUFFT_CUDA_CHECK_LAUNCH();
    for (int it = 0; it < s.value_passes; ++it) {
        sk::forward_kernel<<<mgrid, 256, 0, st>>>(ps, v, it);
        GPUFFT_CUDA_CHECK_LAUNCH();
        sk::norm_kernel<<<unsigned(std::min<long long>(128, (HB + 255) / 256)),
                          256,
                          0,
                          st>>>(v, HB, it);
        GPUFFT_CUDA_CHECK_LAUNCH();
        const unsigned step_grid =
            unsigned((std::max<long long>(HB, s.max_found) + 255) / 256);
        if (it + 1 < s.value_passes)
            sk::step_kernel<false><<<step_grid, 256, 0, st>>>(ps, v, HB, it);
        else // the last iteration also sums the residual energy
            sk::step_kernel<true><<<step_grid, 256, 0, st>>>(ps, v, HB, it);
        GPUFFT_CUDA_CHECK_LAUNCH();
        if (it + 1 < s.value_passes) {
            sk::adjoint_kernel<<<tgrid, 128, 0, st>>>(ps, v, it + 1);
            GPUFFT_CUDA_CHECK_LAUNCH();
        }
    }
}

void launch_sparse_select(const sparse_device_state& s, void* stream)
{
    auto st = static_cast<cudaStream_t>(stream);
    const sk::peel_state ps = sk::peel_of(s);
    const sk::value_state v = sk::values_of(s);
    const unsigned tgrid = unsigned((s.max_found + 127) / 128);
    // Residual check: per tone, only in a frame that is not exactly sparse.
    sk::vouch_kernel<<<tgrid, 128, 0, st>>>(s.c, ps, v);
    GPUFFT_CUDA_CHECK_LAUNCH();
    sk::select_kernel<<<1, 1024, 0, st>>>(
        ps, v, s.bad, int(s.k), s.header, s.out_f, reinterpret_cast<float2*>(s.out_x));
    GPUFFT_CUDA_CHECK_LAUNCH();
}

} // namespace detail
} // namespace gpufft
} // namespace gr
