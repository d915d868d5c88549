/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_NUFFT3_SPECTRUM_IMPL_H
#define INCLUDED_GPUFFT_NUFFT3_SPECTRUM_IMPL_H

#include "stream/time_input.h"
#include <gnuradio/gpufft/nufft3_plan.h>
#include <gnuradio/gpufft/nufft3_spectrum.h>
#include <pmt/pmt.h>
#include <atomic>
#include <complex>
#include <mutex>
#include <vector>

namespace gr {
namespace gpufft {

class nufft3_spectrum_impl : public nufft3_spectrum
{
public:
    nufft3_spectrum_impl(int frame_len,
                         const std::vector<double>& frequencies,
                         double eps,
                         std::int64_t epoch,
                         double nominal_rate,
                         const std::string& backend,
                         int device_id);

    void set_frequencies(const std::vector<double>& frequencies) override;
    std::vector<double> frequencies() const override;
    int frame_len() const override { return d_frame_len; }
    std::int64_t epoch() const override { return d_epoch; }
    std::string backend() const override;
    std::uint64_t frames_processed() const override { return d_processed; }
    std::uint64_t frames_skipped() const override { return d_skipped; }

    void forecast(int noutput_items, gr_vector_int& ninput_items_required) override;
    int general_work(int noutput_items,
                     gr_vector_int& ninput_items,
                     gr_vector_const_void_star& input_items,
                     gr_vector_void_star& output_items) override;

private:
    void follow_tags(std::uint64_t begin, std::uint64_t end);

    const int d_frame_len;
    const std::int64_t d_epoch;
    const stream::time_input d_time;
    mutable std::mutex d_mutex; // guards d_freqs against set_frequencies()
    std::vector<double> d_freqs;
    nufft3_plan d_plan;
    std::vector<double> d_t, d_x, d_s;
    std::vector<std::complex<double>> d_c, d_F;
    pmt::pmt_t d_rx_freq, d_rx_rate; // latest seen, or PMT_NIL
    std::atomic<std::uint64_t> d_processed{ 0 }, d_skipped{ 0 };
};

} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_NUFFT3_SPECTRUM_IMPL_H */
