/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The device side of the large FFT's passes: what each round kind does to a pass in a
// device slot, on the compute stream. The passes' FFTs are the evict-first kernels of
// four_step.h and stockham.h where large_fft_config allows and they apply, cuFFT
// elsewhere (every cuFFT plan made at construction, one shared work area).

#ifndef INCLUDED_GPUFFT_LARGE_PASS_COMPUTE_H
#define INCLUDED_GPUFFT_LARGE_PASS_COMPUTE_H

#include "cuda/cuda_resources.h"
#include "large/large_fft_backend.h"
#include "large/large_fft_kernels.h"
#include <type_traits>
#include <map>
#include <vector>

namespace gr {
namespace gpufft {
namespace detail {

template <typename T> // float or double
class pass_compute
{
public:
    static constexpr bool dbl = std::is_same_v<T, double>;
    using C = std::conditional_t<dbl, cufftDoubleComplex, cufftComplex>;

    //! Plans every FFT that `schedules` need; the work runs on `stream`.
    pass_compute(const std::vector<const large_schedule*>& schedules,
                 direction dir,
                 const large_fft_config& config,
                 cudaStream_t stream);

    /*!
     * Transforms pass `p` of round `r` (not in card) held in `buf`; `spare`, a buffer
     * as large, is free for it. Returns the buffer (`buf` or `spare`) holding the
     * result in the layout of p.writes. When the round reads the input, a non-finite
     * sample sets *flag.
     */
    C* run(const large_round& r, const large_pass& p, C* buf, C* spare, int* flag);
    //! The in-card round on all `n` elements in `buf`, checking them into *flag.
    void run_whole(const whole_round& r, C* buf, std::int64_t n, int* flag);

    const large_fft_stats& stats() const { return d_stats; }

private:
    // The pass is transformed whole by the kernels of four_step.h.
    bool own_fft(const large_round& r, const large_pass& p) const;
    C* compute(const column_round& r,
               const large_pass& p,
               C* buf,
               C* spare,
               int* input_flag,
               bool own);
    C* compute(const tile_transpose_round& r,
               const large_pass& p,
               C* buf,
               C* spare,
               int* input_flag,
               bool own);
    C* compute(const rows_transposed_round& r,
               const large_pass& p,
               C* buf,
               C* spare,
               int* input_flag,
               bool own);
    // A column block [L][bc] transposed on the card for contiguous FFTs.
    C* columns_transposed(
        const column_round& r, const large_pass& p, C* buf, C* spare, twiddle_params tw);
    void fft(C* buf, C* scratch, const fft_call& c);
    void transpose_units(
        const C* in, C* out, std::int64_t rows, std::int64_t cols, std::int64_t unit);
    twiddle_params twiddle_of(const column_round& r, const large_pass& p) const;

    direction d_dir;
    large_fft_config d_config;
    cudaStream_t d_stream;
    std::map<fft_geometry, cuda::cufft_handle> d_plans;
    cuda::device_buffer<char> d_work;
    large_fft_stats d_stats;
};

} // namespace detail
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_LARGE_PASS_COMPUTE_H */
