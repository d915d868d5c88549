/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Robust mode's device stages behind plain C++ launchers (no CUDA types here beyond an
// opaque stream). Each mirrors a step of the CPU backend (robust_cpu.cc) and uses the
// same arithmetic (robust_math.h).

#ifndef INCLUDED_GPUFFT_ROBUST_KERNELS_H
#define INCLUDED_GPUFFT_ROBUST_KERNELS_H

#include "sparse/robust/robust_math.h"
#include <cstddef>
#include <cstdint>

namespace gr {
namespace gpufft {
namespace detail {

//! One tone as the device returns it.
struct robust_device_tone {
    double frequency;
    double re, im;
    double snr_db; //!< set by launch_robust_order()
    int near;      //!< another tone within robust_tone_reach bins (launch_robust_order())
    int flags;     //!< robust_tone_joint, robust_tone_dropped (dense path)
};

//! robust_device_tone::flags: a cluster's joint fit gave the tone (finish_tones() keeps
//! it), or dropped it (launch_robust_order() and the host leave it out).
constexpr int robust_tone_joint = 1;
constexpr int robust_tone_dropped = 2;

//! A dense-path tone before the joint fits (which read these, never the tones they
//! write): its fit, its lobe's peak bin and whether its unwindowed fit stood.
struct robust_pair_seed {
    double frequency;
    double re, im;
    long long bin;
    int plain_ok;
    int pad;
};

//! The block copied back after every call: header, then up to `cap` tones.
struct robust_device_header {
    int bad;      //!< a sample read was not finite
    int tones;    //!< tones found (may exceed the copied capacity)
    int found;    //!< coefficients located and kept
    int bright;   //!< buckets bright enough to locate, over all rounds
    int located;  //!< of those, buckets located, over all rounds
    int ordered;  //!< launch_robust_order() sorted the tones (their snr_db and near set)
    double noise; //!< bucket noise power P (sparse) or bin noise (dense)
    //! Sparse path, the self-check's figures (robust_check.h): the buckets' median noise
    //! before the leak_floor raise, and the loops whose unshifted hash keeps a bucket
    //! robust_bucket_unexplained() flags.
    double raw_noise;
    int unexplained_loops;
    int unused;
};

/*!
 * Device arrays and sizes of one robust plan; every pointer is owned by the plan.
 * Residual and values are interleaved (re, im) doubles.
 */
struct robust_device_state {
    robust_consts c;
    const unsigned long long* sigma = nullptr; //!< per loop
    const unsigned long long* sigma_inv = nullptr;
    const unsigned long long* tau = nullptr;
    double* res = nullptr; //!< [loops][hashes][B] complex
    //! [0] bucket noise P, [1] peak |bucket|^2, [2] P before the leak_floor raise
    double* scalars = nullptr;
    int* loop_flags = nullptr; //!< per loop: an unshifted bucket is unexplained
    //! [0] bad, [1] found, [2 + r] found at round r start, [2 + rounds] buckets bright
    //! enough to locate (all rounds), [2 + rounds + 1 + r] candidates of round r,
    //! [2 + 2 rounds + 1] buckets located (all rounds), [2 + 2 rounds + 2] peaks
    int* counts = nullptr;
    unsigned long long* keys = nullptr; //!< hash table of frequencies (empty: ~0)
    unsigned int* tags = nullptr;       //!< per slot: (round + 1) << 1 | accepted
    int* slot_found = nullptr;          //!< per slot: index in found_f, or -1
    unsigned long long table_mask = 0;
    //! The slots this call claimed in the table, for the next call's reset (a call uses
    //! a few thousand of its millions of slots); used_cap of them.
    long long* used = nullptr;
    //! [0] slots claimed, [1] reset blocks done, [2] the whole table needs clearing (set
    //! at construction)
    int* used_count = nullptr;
    int used_cap = 0;
    //! Candidates (table slots) of the even rounds, then of the odd ones, max_cand each
    long long* cand_slot = nullptr;
    int max_cand = 0;
    long long* found_f = nullptr; //!< located coefficients
    double* found_x = nullptr;    //!< their values (complex)
    double* next_x = nullptr;     //!< re-estimated values (complex)
    //! [loops][B]: the found coefficients whose floor or ceil bucket it is
    //! (robust_count_buckets(); zeroed by the load, counted by the subtraction)
    int* occ = nullptr;
    unsigned char* above = nullptr; //!< per found: stands above the threshold
    int* peaks = nullptr;           //!< found coefficients that are a tone's peak
    int max_found = 0;
    int rounds = 0;
    double eta = 0, locate_eta = 0;
    double leak_floor = 1e-12; //!< the noise is at least this x the peak bucket power
    robust_device_header* header = nullptr;
    robust_device_tone* tones = nullptr;
    int tone_cap = 0;
};

//! Entries of robust_device_state::counts for `rounds` outer rounds.
constexpr int robust_count_slots(int rounds) { return 3 + 2 * (rounds + 1); }

//! Clears the table (the slots the last call claimed, or all of it after an overflow of
//! that list), the counters and the header.
void launch_robust_reset(const robust_device_state& s, void* stream);

/*!
 * HashToBins with the time window (sparse_hash.cuh, the kernel exact mode also runs):
 * z[h][q] = sum over taps i = q0 + m B of G[i] w(j) x[j], j = start_h + sigma_h i
 * (mod n). x_ptr: a device pointer to the input pointer (so one CUDA graph serves any
 * input); staged: the gathered samples instead (window x hashes, hash after hash),
 * x_ptr unused.
 */
void launch_robust_hash(const robust_consts& c,
                        const void* const* x_ptr,
                        const void* staged,
                        const float* taps,
                        const sparse_hash_walk* walks, //!< per hash
                        std::int64_t window,
                        std::int64_t half_window,
                        int total_hashes,
                        void* z,
                        void* stream);

//! res = Z (float -> double), the non-finite flag and the peak |bucket|^2; occ zeroed.
void launch_robust_load(const robust_device_state& s, const void* Z, void* stream);

//! The bucket noise P: the median |res|^2 over every robust_noise_stride()-th bucket of
//! the loops' unshifted hashes, over ln 2; one kernel.
void launch_robust_noise(const robust_device_state& s, void* stream);

//! Robust mode's scalars: [0] P, [1] peak, [2] raw P.
constexpr int robust_scalar_slots = 3;

//! The self-check's figures (robust_check.h) into the header: the raw noise and the
//! loops whose unshifted hash keeps a bucket robust_bucket_unexplained() flags against
//! Z, the buckets before any subtraction. After the last launch_robust_noise().
void launch_robust_check(const robust_device_state& s, const void* Z, void* stream);

//! One outer round: locate, estimate the new candidates, keep and subtract.
void launch_robust_round(const robust_device_state& s, int round, void* stream);

//! EstimateValues on the final residual (Jacobi: all from the same residual), each
//! value without the loops where it shares a bucket (robust_value_median()).
void launch_robust_refine(const robust_device_state& s, void* stream);

//! The coefficients above the threshold, their peaks and the tones fitted to them.
void launch_robust_tones(const robust_device_state& s, void* stream);

//! Tones launch_robust_order() sorts at most (one thread block); more are left to the
//! host.
constexpr int robust_order_max = 4096;

/*!
 * The tones of a call strongest first, each with its snr_db (10 log10 |A|^2 over
 * header->noise x noise_scale, the noise of one bin) and whether another tone lies
 * within robust_tone_reach bins (near: only those can be window leakage of a stronger
 * one, which the host then tests, finish_tones()); header->ordered = 1. One block, two
 * bitonic sorts in shared memory; nothing when more than robust_order_max tones.
 */
void launch_robust_order(robust_device_header* header,
                         robust_device_tone* tones,
                         int cap,
                         std::int64_t n,
                         double noise_scale,
                         void* stream);

/*!
 * Dense path: frame = x (into the buffer the FFT's graph node reads). x_ptr: device
 * pointer to the input pointer.
 */
void launch_copy_frame(std::int64_t n,
                       const void* const* x_ptr,
                       void* frame,
                       void* stream);

/*!
 * Dense path after the FFT of the frame: the windowed spectrum's power per bin
 * (robust_windowed_bin()), the median (a radix selection over every stride-th bin's
 * power), the threshold, a tone per bin that is the largest above the threshold within
 * the main lobe, fitted to its lobe, then fitted again to the unwindowed bins around it
 * where robust_plain_fit_ok() (refine_tones_plain() on the CPU), and the tones that
 * share a lobe fitted together, a warp per cluster (resolve_close_tones() on the CPU).
 */
struct robust_dense_state {
    robust_consts c;
    robust_consts plain;                //!< robust_plain_consts(c)
    double plain_scale = 1;             //!< unwindowed / windowed bin noise
    const void* X = nullptr;            //!< n complex floats: the unwindowed spectrum
    void* Xw = nullptr;                 //!< n complex floats: the windowed one
    float* power = nullptr;             //!< sampled bins' power
    std::int64_t samples = 0;           //!< bins sampled for the median
    unsigned* select_scratch = nullptr; //!< launch_select_nonneg()'s
    float* median = nullptr;            //!< the median of power
    double* scalars = nullptr;          //!< [0] bin noise, [1] peak power
    robust_device_header* header = nullptr;
    robust_device_tone* tones = nullptr;
    int tone_cap = 0;
    double eta = 0;
    //! The joint fits (robust_pairs.h): per tone its seed, their count, and a hash table
    //! of the tones' peak bins (empty key ~0) to their slots.
    robust_pair_seed* seeds = nullptr;
    int* seed_count = nullptr;
    unsigned long long* peak_keys = nullptr;
    int* peak_slots = nullptr;
    unsigned long long peak_mask = 0;
};
//! Slots of the dense path's peak table for `cap` tones (a power of two, half full).
std::size_t robust_peak_table_size(int cap);
void launch_dense_tones(const robust_dense_state& s, void* stream);

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_ROBUST_KERNELS_H */
