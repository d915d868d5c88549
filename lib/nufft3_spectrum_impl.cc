/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "block_logger.h"
#include "block_stream.h"
#include "nufft3_spectrum_impl.h"
#include <gnuradio/io_signature.h>
#include <cmath>
#include <stdexcept>

namespace gr {
namespace gpufft {

namespace {

constexpr double two_pi = 6.283185307179586476925;

void check_frequencies(const std::vector<double>& f)
{
    if (f.empty())
        throw std::invalid_argument("frequencies: at least one frequency is needed");
    for (double v : f)
        if (!std::isfinite(v))
            throw std::invalid_argument("frequencies: every frequency must be finite");
}

// A frame is one NUFFT plan's sources and one input buffer of GNU Radio's: 2^24 samples
// (128 MiB of complex64 plus their times) is far past any use and still allocatable.
constexpr int max_frame_len = 1 << 24;

int checked_frame_len(int frame_len)
{
    if (frame_len < 1 || frame_len > max_frame_len)
        throw std::invalid_argument("frame_len: " + std::to_string(frame_len) +
                                    " is outside [1, " + std::to_string(max_frame_len) +
                                    "] samples per frame");
    return frame_len;
}

} // namespace

nufft3_spectrum::sptr nufft3_spectrum::make(int frame_len,
                                            const std::vector<double>& frequencies,
                                            double eps,
                                            std::int64_t epoch,
                                            double nominal_rate,
                                            const std::string& backend,
                                            int device_id)
{
    check_frequencies(frequencies);
    return gnuradio::make_block_sptr<nufft3_spectrum_impl>(
        frame_len, frequencies, eps, epoch, nominal_rate, backend, device_id);
}

nufft3_spectrum_impl::nufft3_spectrum_impl(int frame_len,
                                           const std::vector<double>& frequencies,
                                           double eps,
                                           std::int64_t epoch,
                                           double nominal_rate,
                                           const std::string& backend,
                                           int device_id)
    : gr::block(
          "nufft3_spectrum",
          gr::io_signature::make2(
              2, 2, sizeof(gr_complex), stream::time_input(nominal_rate).item_size()),
          gr::io_signature::make(
              1, 1, sizeof(gr_complex) * std::max<std::size_t>(1, frequencies.size()))),
      d_frame_len(checked_frame_len(frame_len)),
      d_eps(eps),
      d_device_id(device_id),
      d_epoch(epoch),
      d_time(nominal_rate),
      d_freqs(frequencies),
      d_fallback(parse_backend(backend), "nufft3_spectrum", block_log_handler(d_logger)),
      d_plan(d_fallback.make([this](gpufft::backend b) { return make_plan(b); })),
      d_backend(d_plan.backend()),
      d_t(frame_len),
      d_x(frame_len),
      d_s(frequencies.size()),
      d_c(frame_len),
      d_F(frequencies.size()),
      d_clock(epoch)
{
    check_frequencies(frequencies);
    // One spectrum per frame_len samples; GNU Radio also sizes the input buffers by it,
    // so a frame longer than the default buffer still fits.
    set_relative_rate(1, std::uint64_t(d_frame_len));
    set_tag_propagation_policy(TPP_DONT); // rx_time is recomputed per output item
    message_port_register_in(pmt::mp("cmd"));
    set_msg_handler(pmt::mp("cmd"), [this](const pmt::pmt_t& msg) {
        handle_cmd(
            msg,
            { { "frequencies",
                [this](const pmt::pmt_t& v) { set_frequencies(pmt_doubles(v)); } } },
            d_logger);
    });
}

nufft3_plan nufft3_spectrum_impl::make_plan(gpufft::backend b) const
{
    nufft3_options o;
    o.log = block_log_handler(d_logger);
    o.backend = b;
    o.device_id = d_device_id;
    o.precision = precision::double_; // times need double; eps decides the work
    return nufft3_plan(1, d_eps, o);
}

bool nufft3_spectrum_impl::stop()
{
    // The samples after the last frame never make one: say how many (docs/stream.md).
    const std::uint64_t tail = unread_samples(*this, 0);
    if (tail > 0)
        d_logger->info("stopped with {:d} samples after the last frame: too few for a "
                       "frame of frame_len = {:d}",
                       tail,
                       d_frame_len);
    return block::stop();
}

void nufft3_spectrum_impl::set_frequencies(const std::vector<double>& frequencies)
{
    check_frequencies(frequencies);
    std::lock_guard<std::mutex> lock(d_mutex);
    if (frequencies.size() != d_freqs.size())
        throw std::invalid_argument("frequencies: " + std::to_string(frequencies.size()) +
                                    " given; the output vector holds " +
                                    std::to_string(d_freqs.size()));
    d_freqs = frequencies;
}

std::vector<double> nufft3_spectrum_impl::frequencies() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_freqs;
}

std::string nufft3_spectrum_impl::backend() const { return to_string(d_backend.load()); }

void nufft3_spectrum_impl::forecast(int noutput_items,
                                    gr_vector_int& ninput_items_required)
{
    for (auto& n : ninput_items_required)
        n = noutput_items * d_frame_len;
}

void nufft3_spectrum_impl::follow_tags(std::uint64_t first, const double* t)
{
    // The tag rule (docs/stream.md): tags inside the frame apply to it. rx_time fixes
    // the clock's origin at the time of the sample it tags.
    std::vector<gr::tag_t> tags;
    get_tags_in_range(tags, 0, first, first + std::uint64_t(d_frame_len));
    follow_time_input_tags(tags, first, t, d_clock, d_tuning, d_logger);
}

int nufft3_spectrum_impl::general_work(int noutput_items,
                                       gr_vector_int& ninput_items,
                                       gr_vector_const_void_star& input_items,
                                       gr_vector_void_star& output_items)
{
    const auto* in = static_cast<const gr_complex*>(input_items[0]);
    const auto* times = static_cast<const unsigned char*>(input_items[1]);
    auto* out = static_cast<gr_complex*>(output_items[0]);
    if (d_stopped)
        return WORK_DONE;
    const int L = d_frame_len;
    const int frames =
        std::min(noutput_items, std::min(ninput_items[0], ninput_items[1]) / L);
    const std::size_t K = d_F.size();
    int produced = 0;
    for (int f = 0; f < frames; ++f) {
        const gr_complex* x = in + std::size_t(f) * L;
        const std::uint64_t first = nitems_read(0) + std::uint64_t(f) * L;
        d_time.read(
            times + std::size_t(f) * L * d_time.item_size(), first, L, d_t.data());
        const double* t = d_t.data();
        follow_tags(first, t);

        if (!stream::finite_frame(x, t, L)) {
            ++d_skipped;
            if (d_skip_log.allow())
                d_logger->warn("frame at sample {:d} holds a NaN or infinite sample or "
                               "time; skipped ({:d} skipped so far, {:d} since the last "
                               "of these warnings, at most one per 10 s)",
                               first,
                               std::uint64_t(d_skipped),
                               d_skip_log.held());
            continue;
        }
        const double t0 = t[0];
        for (int j = 0; j < L; ++j) {
            d_x[j] = t[j] - t0;
            d_c[j] = std::complex<double>(x[j].real(), x[j].imag());
        }
        {
            std::lock_guard<std::mutex> lock(d_mutex);
            for (std::size_t k = 0; k < K; ++k)
                d_s[k] = two_pi * d_freqs[k];
        }
        std::string refused;
        bool done = false;
        try {
            done = d_fallback.run(
                [&] {
                    d_plan.set_points(L, d_x.data(), std::int64_t(K), d_s.data());
                    d_plan.execute(d_c.data(), d_F.data());
                },
                [&] {
                    d_plan = make_plan(d_fallback.backend());
                    d_backend = d_plan.backend();
                },
                refused);
        } catch (const stream::engine_stopped& e) {
            d_logger->error("{:s}",
                            e.what()); // docs/reliability.md, "Faults inside blocks"
            d_stopped = true;
            consume_each(f * L);
            return produced > 0 ? produced : WORK_DONE;
        }
        if (!done) {
            ++d_skipped;
            if (d_skip_log.allow())
                d_logger->warn("frame at sample {:d} skipped: {:s} ({:d} since the last "
                               "of these warnings, at most one per 10 s)",
                               first,
                               refused,
                               d_skip_log.held());
            continue;
        }
        gr_complex* o = out + std::size_t(produced) * K;
        for (std::size_t k = 0; k < K; ++k)
            o[k] = gr_complex(float(d_F[k].real()), float(d_F[k].imag()));

        const std::uint64_t item = nitems_written(0) + produced;
        const stream::absolute_time at = d_clock.at(t0);
        add_item_tag(0, item, key_rx_time(), time_pmt(at.seconds, at.fraction));
        if (d_tuning.have_freq && d_freq_out.changed(d_tuning.freq))
            add_item_tag(0, item, key_rx_freq(), pmt::from_double(d_tuning.freq));
        if (d_tuning.have_rate && d_rate_out.changed(d_tuning.rate))
            add_item_tag(0, item, key_rx_rate(), pmt::from_double(d_tuning.rate));
        ++produced;
        ++d_processed;
    }
    consume_each(frames * L);
    return produced;
}

} // namespace gpufft
} // namespace gr
