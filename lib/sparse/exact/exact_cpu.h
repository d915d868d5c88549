/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// CPU backend of the sparse FFT's exact mode, split by stage like the CUDA kernels:
// sparse_cpu.cc hashes and locates (phase or voting), sparse_cpu_values.cc finds the
// values and runs the residual check.

#ifndef INCLUDED_GPUFFT_SPARSE_CPU_H
#define INCLUDED_GPUFFT_SPARSE_CPU_H

#include "sparse/exact/exact_backend.h"
#include <gnuradio/gpufft/dense_fft_plan.h>
#include <unordered_map>
#include <complex>
#include <cstdint>
#include <vector>

namespace gr {
namespace gpufft {
namespace detail {

class sparse_cpu final : public sparse_exact_backend
{
public:
    explicit sparse_cpu(const sparse_params& p);

    void execute(const std::complex<float>* x,
                 memory where,
                 std::vector<std::int64_t>& bins,
                 std::vector<std::complex<float>>& values) override;

    bool not_sparse() const override { return d_not_sparse; }

private:
    // Hash and location (sparse_cpu.cc).
    void hash(const std::complex<float>* x);
    double load_buckets();
    void locate();
    void locate_by_voting();
    template <typename Fn>
    void for_each_candidate(int r, Fn&& fn) const;
    void add_tone(std::int64_t f, double xr, double xi);

    // Values and the residual check (sparse_cpu_values.cc).
    void estimate();
    void refine_least_squares();
    void check_residual();
    bool vouch(std::size_t i);
    void apply_updates(const std::vector<double>& nr, const std::vector<double>& ni);

    sparse_params d_p;
    std::vector<float> d_taps;
    dense_fft_plan d_fft;
    std::vector<std::complex<float>> d_z, d_Z;
    std::vector<double> d_re, d_im;
    double d_hashed_energy = 0; // sum of |Z|^2 over every bucket of every hash
    bool d_not_sparse = false;
    std::vector<char> d_keep; // per located tone, when d_not_sparse: vouched for
    std::vector<std::int64_t> d_found_f;
    std::vector<double> d_xr, d_xi;
    std::unordered_map<std::int64_t, std::size_t> d_index;
    // Scratch of the value stage, kept between calls (execute allocates nothing once
    // warm).
    std::vector<double> d_scratch_r, d_scratch_i, d_next_r, d_next_i, d_sorted_r,
        d_sorted_i;
    std::vector<std::complex<double>> d_cg_s, d_cg_p, d_cg_q;
    std::vector<std::complex<double>> d_resp;
    std::vector<std::size_t> d_at;
    // Voting location (only when d_p.voting): n-bit vote maps per loop, the selected
    // buckets of each loop, and each selected bucket's decoded frequency (-1: none).
    std::size_t d_words = 0;
    std::vector<std::uint64_t> d_bits;
    std::vector<std::int64_t> d_order, d_sel, d_nsel, d_decoded;
};

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_SPARSE_CPU_H */
