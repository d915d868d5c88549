/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_SPARSE_ROBUST_BACKEND_H
#define INCLUDED_GPUFFT_SPARSE_ROBUST_BACKEND_H

#include "sparse/common/sparse_params.h"
#include "sparse/robust/robust_check.h"
#include "sparse/robust/robust_math.h"
#include <gnuradio/gpufft/backend.h>
#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace gpufft {
namespace detail {

/*!
 * What a robust-mode backend finds in one frame, under one contract for every backend
 * (order_tones() completes it on the host where the device did not): the tones,
 * strongest first, with snr_db set, possibly more than k; near[i] and joint[i] for each
 * one; and the noise.
 */
struct robust_frame {
    std::vector<sparse_tone> tones;
    //! Noise power of one bin of the windowed spectrum (|X|^2 units).
    double bin_noise = 0;
    //! The tones are ordered (the CUDA backends order them on the device); near[i]:
    //! another tone lies within robust_tone_reach bins.
    bool ordered = false;
    std::vector<unsigned char> near;
    //! joint[i]: a cluster's joint fit gave tone i (the dense path's
    //! resolve_close_tones()); finish_tones() never takes such a tone for leakage.
    std::vector<unsigned char> joint;
    //! The sublinear path's self-check (robust_check.h); the dense path always passes.
    //! A frame that fails is redone on the dense path by the plan.
    robust_check check = robust_check::passed;
};

//! One backend of robust mode (sublinear path or dense FFT + threshold).
class sparse_robust_backend
{
public:
    virtual ~sparse_robust_backend() = default;
    //! Throws std::invalid_argument on non-finite samples among those read.
    virtual void run(const std::complex<float>* x, memory where, robust_frame& out) = 0;
    virtual std::string notes() const { return {}; }
};

std::unique_ptr<sparse_robust_backend> make_robust_cpu(const sparse_params& p);
std::unique_ptr<sparse_robust_backend> make_dense_threshold_cpu(const sparse_params& p);
#ifdef GPUFFT_HAVE_CUDA
std::unique_ptr<sparse_robust_backend>
make_robust_cuda(const sparse_params& p, int device_id, sparse_fft_transfer transfer);
std::unique_ptr<sparse_robust_backend> make_dense_threshold_cuda(const sparse_params& p,
                                                                 int device_id);
#endif

/*!
 * The dense path's second fit of each tone, on the unwindowed spectrum X around it (the
 * first, on the window's lobe, gave frequency and amplitude): kept where
 * robust_plain_fit_ok() says nothing else leaks into those bins. plain_noise: the noise
 * power of one unwindowed bin. plain_ok (optional): per tone, whether it was kept.
 */
void refine_tones_plain(const robust_consts& c,
                        const std::complex<float>* X,
                        double plain_noise,
                        std::vector<sparse_tone>& tones,
                        std::vector<unsigned char>* plain_ok = nullptr);

/*!
 * The dense path's last step (robust_pairs.h): tones whose lobe peaks lie within
 * robust_pair_gap bins of each other, and tones whose second fit failed
 * (plain_ok[i] == 0), are fitted again together on the unwindowed spectrum X around
 * them, where a tone hidden in another's lobe is added, and a tone the joint fit finds
 * too weak is dropped. peak_bins[i]: tone i's lobe peak (tones_from_peaks()). The
 * clusters' tones are replaced by their joint fits (added ones appended); joint[i] says
 * which tones a joint fit gave.
 */
void resolve_close_tones(const robust_consts& c,
                         const std::complex<float>* X,
                         double plain_noise,
                         double eta,
                         const std::vector<std::int64_t>& peak_bins,
                         const std::vector<unsigned char>& plain_ok,
                         std::vector<sparse_tone>& tones,
                         std::vector<unsigned char>& joint);

/*!
 * Tones from coefficients of the windowed spectrum (bins unordered): every coefficient
 * that is the largest of the found ones within the window's main lobe is a tone's peak,
 * fitted by robust_fit_tone() to the lobe's found coefficients. Appends to `tones`
 * (and each one's peak bin to peak_bins, when given).
 */
void tones_from_peaks(const robust_consts& c,
                      const std::vector<std::int64_t>& bins,
                      const std::vector<std::complex<double>>& values,
                      std::vector<sparse_tone>& tones,
                      std::vector<std::int64_t>* peak_bins = nullptr);

/*!
 * The frame's contract, completed on the host: unless f.ordered, the tones sorted
 * strongest first with their SNR over raw_bin_noise (noise per bin of the unwindowed
 * spectrum) and near set; joint and near sized to the tones. Every backend's run() ends
 * with it.
 */
void order_tones(double raw_bin_noise, robust_frame& f);

/*!
 * The plan's answer from an ordered frame (order_tones()): the k strongest tones,
 * strongest first, less the peaks that a stronger tone's window leakage explains; only
 * the tones marked near are tested, and a joint fit's tone never is.
 */
void finish_tones(const robust_consts& c, std::int64_t k, robust_frame& f);

//! The dense path estimates the noise from every stride-th bin: at most 2^20 of them.
inline std::int64_t dense_noise_stride(std::int64_t n)
{
    const std::int64_t cap = std::int64_t(1) << 20;
    return (n + cap - 1) / cap;
}

/*!
 * The noise floor a frame can claim: float samples, float hashes and a float FFT carry
 * errors 120-140 dB below the strongest bin or bucket, so a floor estimated below 120 dB
 * under it is raised to that.
 */
inline double precision_floor(double noise, double peak_power, double relative = 1e-12)
{
    const double floor = relative * peak_power;
    return noise > floor ? noise : floor;
}

/*!
 * The coefficients of the plain (unwindowed) spectrum the tones make: for each tone the
 * bins around it whose |X|^2 stands above threshold, then the k largest, ascending.
 */
void tone_coefficients(std::int64_t n,
                       std::int64_t k,
                       double threshold,
                       const std::vector<sparse_tone>& tones,
                       std::vector<std::int64_t>& bins,
                       std::vector<std::complex<float>>& values);

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_SPARSE_ROBUST_BACKEND_H */
