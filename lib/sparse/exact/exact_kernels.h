/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Exact mode's device stages behind plain C++ launchers (no CUDA types here beyond an
// opaque stream; complex arrays are interleaved (re, im) floats or doubles). Each
// mirrors a step of the CPU backend (sparse_cpu.cc) and uses the same arithmetic
// (sparse_math.h). The launchers enqueue in the order of one call, so the backend
// (sparse_cuda.cc) can capture them into one CUDA graph.

#ifndef INCLUDED_GPUFFT_SPARSE_KERNELS_H
#define INCLUDED_GPUFFT_SPARSE_KERNELS_H

#include "sparse/common/sparse_math.h"
#include <cstdint>

namespace gr {
namespace gpufft {
namespace detail {

//! Host-visible result: this header, then k bins, then k values (one copy back).
struct sparse_device_header {
    int count;      //!< valid entries
    int bad;        //!< a sample read was not finite
    int not_sparse; //!< the residual check failed: only vouched-for tones are returned
    int reserved;   //!< keeps the bins that follow 8-byte aligned
};

/*!
 * Device arrays and sizes of one exact-mode plan; every pointer is owned by the plan.
 * H = loops x levels hashes of B buckets each.
 */
struct sparse_device_state {
    sparse_consts c;
    std::int64_t k = 0;
    std::int64_t window = 0, half_window = 0;
    const float* taps = nullptr;                   //!< window taps
    const sparse_hash_walk* walks = nullptr;       //!< per hash
    const unsigned long long* sigma = nullptr;     //!< per loop
    const unsigned long long* sigma_inv = nullptr; //!< per loop
    const unsigned long long* tau = nullptr;       //!< per loop
    const void* const* x_ptr = nullptr; //!< device pointer to the input pointer
    const float* staged = nullptr;      //!< the gathered samples, window per hash
    float* z = nullptr;                 //!< [H][B] complex: hashes before the FFT
    float* Z = nullptr;                 //!< [H][B] complex: after it
    unsigned int* peak = nullptr;       //!< largest |Z|^2 (float bits)
    int* bad = nullptr;                 //!< a bucket is not finite
    double threshold_rel = 0;           //!< empty buckets: below this x the peak
    // Peeling.
    unsigned long long* table = nullptr; //!< open addressing on f, table_size slots
    unsigned long long table_size = 0;   //!< a power of two
    long long* found_f = nullptr;        //!< located tones
    double* found_x = nullptr;           //!< their first estimates (complex)
    int* count = nullptr;                //!< tones located (clamp to max_found)
    int* count_at = nullptr;             //!< [rounds + 1]: located before round r
    int max_found = 0;
    int rounds = 0;
    // Values: median, then CGLS; the residual check.
    double* x = nullptr;     //!< [max_found] complex: current values
    double* resp = nullptr;  //!< [max_found][per] complex: unit tone's responses
    int* at = nullptr;       //!< [max_found][per]: those buckets' indices
    int per = 0;             //!< loops x 3 x levels
    double* R = nullptr;     //!< [H][B] complex: residual buckets
    double* q = nullptr;     //!< [H][B] complex: A p
    double* s = nullptr;     //!< [max_found] complex: A^H R
    double* p[2] = {};       //!< [max_found] complex: search directions (ping-pong)
    double* gamma = nullptr; //!< [value_passes + 1]
    double* qq = nullptr;    //!< [max(1, value_passes)]
    int value_passes = 0;
    double* energy = nullptr; //!< [0] hashed energy, [1] residual energy
    int* keep = nullptr;      //!< per tone: vouched for
    double* vm = nullptr;     //!< [max_found] complex: per tone's median estimate
    // Voting location (only when voting).
    bool voting = false;
    unsigned long long* bits = nullptr; //!< loops x vote_words: n bits per loop
    unsigned long long vote_words = 0;
    long long* sel = nullptr;     //!< loops x vote_cutoff: selected buckets
    int* nsel = nullptr;          //!< per loop: buckets above the threshold
    long long* decoded = nullptr; //!< loops x B: the bucket's decoded f, or -1
    double* decoded_x = nullptr;  //!< loops x B complex: its value
    long long vote_cutoff = 0;
    int vote_threshold = 0;
    // Result block (header, k bins, k values).
    sparse_device_header* header = nullptr;
    long long* out_f = nullptr;
    float* out_x = nullptr; //!< complex
};

//! Clears the tone table, the counters and the sums of one call.
void launch_sparse_reset(const sparse_device_state& s, void* stream);

/*!
 * Window, permute and fold into s.z: from the input behind s.x_ptr, or (staged) from
 * the gathered samples s.staged.
 */
void launch_sparse_hash(const sparse_device_state& s, bool staged, void* stream);

//! After the batched FFT: the largest |Z|^2, the hashed energy, the non-finite flag.
void launch_sparse_peak(const sparse_device_state& s, void* stream);

//! One peeling round of the phase location: decode every bucket, subtract new tones.
void launch_sparse_round(const sparse_device_state& s, int round, void* stream);

//! The whole voting location (s.voting): cutoff, votes, rounds, vote maps cleared.
void launch_sparse_voting(const sparse_device_state& s, void* stream);

//! Values: the median over hashes, then s.value_passes CGLS iterations.
void launch_sparse_values(const sparse_device_state& s, void* stream);

//! The residual check's vouching and the k largest tones into the result block.
void launch_sparse_select(const sparse_device_state& s, void* stream);

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_SPARSE_KERNELS_H */
