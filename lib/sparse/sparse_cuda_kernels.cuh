/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Device stages of the sparse FFT. Each mirrors a step of the CPU backend
// (sparse_cpu.cc) and uses the same arithmetic (sparse_math.h).

#ifndef INCLUDED_GPUFFT_SPARSE_CUDA_KERNELS_CUH
#define INCLUDED_GPUFFT_SPARSE_CUDA_KERNELS_CUH

#include "sparse_math.h"
#include <cuda_runtime.h>
#include <cstdint>

namespace gr {
namespace gpufft {
namespace detail {
namespace sparse_kernels {

constexpr int hash_rows = 8;     // threads sharing one bucket's taps
constexpr int hash_buckets = 32; // buckets per block
constexpr unsigned long long empty_key = ~0ull;


//! Sum of v over the block (blockDim.x a multiple of 32, at most 1024); the total is
//! valid in thread 0. Every thread of the block must call it.
__device__ inline double block_sum(double v)
{
    __shared__ double warp_sums[32];
    for (int o = 16; o; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    __syncthreads(); // warp_sums may still be read by a previous call
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();
    v = 0;
    if (warp == 0) {
        v = lane < int(blockDim.x >> 5) ? warp_sums[lane] : 0.0;
        for (int o = 16; o; o >>= 1)
            v += __shfl_xor_sync(0xffffffffu, v, o);
    }
    return v;
}

//! Per-hash sample walk: the index of tap 0 and the index step per tap (sigma), mod n.
struct hash_walk {
    unsigned long long start;
    unsigned long long step;
};

/*!
 * Window, permute and fold: z[h][q] = sum over taps i = q0 + m B of
 * G[i] x[start_h + sigma i]. Each bucket is owned by hash_rows threads that split its
 * taps and add in shared memory: no atomics, no loop-carried index beyond one add.
 * staged: x holds the gathered samples of each hash one after the other (w per hash).
 */
template <bool staged>
__global__ void hash_kernel(const float2* const* x_ptr,
                            const float2* staged_x,
                            const float* __restrict__ taps,
                            const hash_walk* __restrict__ walks,
                            long long n,
                            long long B,
                            long long w,
                            long long half_window,
                            float2* __restrict__ z)
{
    __shared__ float2 part[hash_rows][hash_buckets];
    const int h = blockIdx.y;
    const long long q = (long long)blockIdx.x * hash_buckets + threadIdx.x;
    float2 acc = make_float2(0.f, 0.f);
    if (q < B) {
        const long long q0 = ((-half_window) % B + B) % B; // bucket of tap 0
        long long i = (q - q0 + B) % B + (long long)threadIdx.y * B;
        const hash_walk hw = walks[h];
        const unsigned long long un = (unsigned long long)n;
        unsigned long long idx = 0, jump = 0;
        const float2* xs = nullptr;
        if (staged) {
            xs = staged_x + (long long)h * w;
        } else {
            xs = *x_ptr;
            idx = hw.start + mulmod(hw.step, (unsigned long long)i % un, un);
            if (idx >= un)
                idx -= un;
            jump = mulmod(hw.step, (unsigned long long)(hash_rows * B) % un, un);
        }
        for (; i < w; i += hash_rows * B) {
            const float g = taps[i];
            const float2 v = staged ? xs[i] : xs[idx];
            acc.x += g * v.x;
            acc.y += g * v.y;
            if (!staged) {
                idx += jump;
                if (idx >= un)
                    idx -= un;
            }
        }
    }
    part[threadIdx.y][threadIdx.x] = acc;
    __syncthreads();
    if (threadIdx.y == 0 && q < B) {
        for (int r = 1; r < hash_rows; ++r) {
            acc.x += part[r][threadIdx.x].x;
            acc.y += part[r][threadIdx.x].y;
        }
        z[(long long)h * B + q] = acc;
    }
}

//! Largest |Z|^2 over every bucket (the empty-bucket threshold is relative to it), the
//! sum of |Z|^2 (the hashed energy the residual check compares with), and a flag when
//! any bucket is not finite (a NaN/Inf sample was read).
__global__ void peak_kernel(const float2* __restrict__ Z,
                            long long count,
                            unsigned int* peak_bits,
                            int* bad,
                            double* hashed_energy)
{
    float m = 0.f;
    double e = 0;
    bool nonfinite = false;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < count;
         i += (long long)gridDim.x * blockDim.x) {
        const float2 v = Z[i];
        const float a = v.x * v.x + v.y * v.y;
        if (!isfinite(a)) {
            nonfinite = true;
        } else {
            m = fmaxf(m, a);
            e += double(v.x) * v.x + double(v.y) * v.y;
        }
    }
    for (int o = 16; o; o >>= 1)
        m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    if ((threadIdx.x & 31) == 0)
        atomicMax(peak_bits, __float_as_uint(m)); // non-negative floats order as uints
    if (nonfinite)
        atomicOr(bad, 1);
    e = block_sum(e);
    if (threadIdx.x == 0 && e != 0)
        atomicAdd(hashed_energy, e);
}

struct peel_state {
    unsigned long long* table; // open addressing on f, `mask + 1` slots
    unsigned long long mask;
    long long* found_f;
    double2* found_x;
    int* count;    // tones located (may run past max_found; clamp on read)
    int* count_at; // count_at[r]: tones located before round r
    int max_found;
};

//! The single-tone test of bucket b of loop r on its hashes at every level (Z as laid
//! out by the batched FFT): true, with the tone's frequency and value, if one tone holds
//! it.
__device__ inline bool
decode_hashed_bucket(const sparse_consts& c,
                     const float2* __restrict__ Z,
                     const unsigned long long* __restrict__ sigma_inv,
                     const unsigned long long* __restrict__ tau,
                     const unsigned int* peak_bits,
                     double threshold_rel,
                     int r,
                     long long b,
                     std::int64_t& f,
                     double& xr,
                     double& xi)
{
    double zr[sparse_max_levels], zi[sparse_max_levels];
    for (int j = 0; j < c.levels; ++j) {
        const float2 v = Z[(long long)(r * c.levels + j) * c.B + b];
        zr[j] = v.x;
        zi[j] = v.y;
    }
    const double thr2 =
        double(__uint_as_float(*peak_bits)) * threshold_rel * threshold_rel;
    return decode_bucket(c, zr, zi, b, sigma_inv[r], tau[r], thr2, f, xr, xi);
}

//! Appends tone f to the located set unless it is there already (open addressing on f).
__device__ inline void insert_tone(const peel_state& s, unsigned long long f, double2 x)
{
    if (*(volatile int*)s.count >= s.max_found)
        return; // full: bounds the table's load to max_found + loops * B keys
    unsigned long long slot = f * 0x9E3779B97F4A7C15ull;
    slot = (slot >> 20) & s.mask;
    for (;;) {
        const unsigned long long prev = atomicCAS(&s.table[slot], empty_key, f);
        if (prev == empty_key) {
            const int at = atomicAdd(s.count, 1);
            if (at < s.max_found) {
                s.found_f[at] = (long long)f;
                s.found_x[at] = x;
            }
            return;
        }
        if (prev == f)
            return; // already located (this round by another loop, or earlier)
        slot = (slot + 1) & s.mask;
    }
}

/*!
 * One peeling round, part 1: every bucket of every loop that holds a single tone names
 * it; tones not seen before are appended (deduplicated through the hash table).
 */
__global__ void decode_kernel(sparse_consts c,
                              const float2* __restrict__ Z,
                              const unsigned long long* __restrict__ sigma_inv,
                              const unsigned long long* __restrict__ tau,
                              const unsigned int* peak_bits,
                              double threshold_rel,
                              peel_state s,
                              int round)
{
    if (round > 0 && s.count_at[round] == s.count_at[round - 1])
        return; // nothing was subtracted last round: the buckets have not changed
    const long long id = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (id >= (long long)c.loops * c.B)
        return;
    const int r = int(id / c.B);
    const long long b = id % c.B;
    std::int64_t f;
    double xr, xi;
    if (decode_hashed_bucket(
            c, Z, sigma_inv, tau, peak_bits, threshold_rel, r, b, f, xr, xi))
        insert_tone(s, (unsigned long long)f, make_double2(xr, xi));
}

/*!
 * Peeling round, part 2: subtract each tone located this round from every hash, in its
 * own bucket and both neighbours (the window's response is negligible further out).
 */
__global__ void subtract_kernel(sparse_consts c,
                                float2* Z,
                                const unsigned long long* __restrict__ sigma,
                                const unsigned long long* __restrict__ tau,
                                peel_state s,
                                int round)
{
    const int first = s.count_at[round];
    const int end = min(*s.count, s.max_found);
    const long long id = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (id == 0)
        s.count_at[round + 1] = end;
    const long long i = first + id / c.loops;
    if (i >= end)
        return;
    const int r = int(id % c.loops);
    const long long f = s.found_f[i];
    const double2 x = s.found_x[i];
    const long long g = (long long)mulmod(sigma[r], (unsigned long long)f, c.n);
    const long long b0 = own_bucket(c, g);
    for (int db = -1; db <= 1; ++db) {
        const long long b = (b0 + db + c.B) % c.B;
        for (int j = 0; j < c.levels; ++j) {
            double zr, zi;
            tone_in_bucket(
                c, f, g, x.x, x.y, b, (unsigned long long)c.offset[j], tau[r], zr, zi);
            float2* p = &Z[(long long)(r * c.levels + j) * c.B + b];
            atomicAdd(&p->x, float(-zr));
            atomicAdd(&p->y, float(-zi));
        }
    }
}

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

//! Host-visible result: header, then k bins, then k values (one copy back).
struct out_header {
    int count;      // valid entries
    int bad;        // a sample read was not finite
    int not_sparse; // the residual check failed: only vouched-for tones are returned
    int reserved;   // keeps the bins that follow 8-byte aligned
};

//! Per-call reset of the small state (one launch instead of a memset each).
__global__ void reset_kernel(unsigned long long* table,
                             unsigned long long table_size,
                             unsigned int* peak,
                             int* bad,
                             int* count,
                             int* count_at,
                             int rounds,
                             double* gamma,
                             double* qq,
                             int passes,
                             double* energy)
{
    const long long id = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    for (long long i = id; i < (long long)table_size;
         i += (long long)gridDim.x * blockDim.x)
        table[i] = empty_key;
    if (id == 0) {
        *peak = 0;
        *bad = 0;
        *count = 0;
        energy[0] = 0;
        energy[1] = 0;
    }
    if (id <= rounds)
        count_at[id] = 0;
    if (id <= passes) {
        gamma[id] = 0;
        if (id < passes)
            qq[id] = 0;
    }
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

} // namespace sparse_kernels
} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_SPARSE_CUDA_KERNELS_CUH */
