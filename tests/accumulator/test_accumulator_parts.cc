/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Window, band reduction and SIGPROC writer of the large-FFT accumulator,
// each against an independent computation.

#include "accumulator/filterbank_writer.h"
#include "large/power/band_reducer.h"
#include "large/power/spectral_window.h"
#include "reference.h"
#include "stream/filterbank_recorder.h"
#include "stream/spectrometer_setup.h"
#include "test_harness.h"
#include <gnuradio/gpufft/device.h>
#include <unistd.h>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

using namespace gr::gpufft::accumulator;
using namespace gr::gpufft::power;
using gpufft_test::cd;

namespace {
const double pi = std::acos(-1.0);

// Textbook periodic windows, written out independently of the phasor recurrence.
double textbook(window_type t, std::int64_t i, std::int64_t n)
{
    const double x = 2 * pi * double(i) / double(n);
    switch (t) {
    case window_type::none:
        return 1;
    case window_type::hann:
        return 0.5 - 0.5 * std::cos(x);
    case window_type::hamming:
        return 0.54 - 0.46 * std::cos(x);
    case window_type::blackman:
        return 0.42 - 0.5 * std::cos(x) + 0.08 * std::cos(2 * x);
    case window_type::blackman_harris:
        return 0.35875 - 0.48829 * std::cos(x) + 0.14128 * std::cos(2 * x) -
               0.01168 * std::cos(3 * x);
    case window_type::flattop:
        return 0.21557895 - 0.41663158 * std::cos(x) + 0.277263158 * std::cos(2 * x) -
               0.083578947 * std::cos(3 * x) + 0.006947368 * std::cos(4 * x);
    }
    return 0;
}

const window_type all_windows[] = { window_type::none,
                                    window_type::hann,
                                    window_type::hamming,
                                    window_type::blackman,
                                    window_type::blackman_harris,
                                    window_type::flattop };

std::string temp_path(const char* stem)
{
    return "/tmp/" + std::string(stem) + "_" + std::to_string(getpid()) + ".fil";
}
} // namespace

GPUFFT_TEST(window_matches_textbook_and_sums)
{
    const std::uint64_t seed = gpufft_test::fresh_seed();
    for (window_type t : all_windows) {
        for (std::int64_t n : { 7, 1000, 12289 }) {
            spectral_window w(t, n);
            auto x = gpufft_test::random_complex<float>(std::size_t(n), seed);
            auto y = x;
            // apply() on two uneven pieces, as the threads do
            const std::int64_t cut = n / 3;
            w.apply(y.data(), 0, cut);
            w.apply(y.data() + cut, cut, n);
            double s = 0, s2 = 0, err = 0;
            for (std::int64_t i = 0; i < n; ++i) {
                const double ref = textbook(t, i, n);
                s += ref;
                s2 += ref * ref;
                err = std::max(err, std::abs(w.value(i) - ref));
                err = std::max(err, std::abs(cd(y[i]) - cd(x[i]) * ref));
            }
            GPUFFT_CHECK_LE(err, 1e-6);
            GPUFFT_CHECK_LE(std::abs(w.sum() - s), 1e-9 * n);
            GPUFFT_CHECK_LE(std::abs(w.sum_of_squares() - s2), 1e-9 * n);
        }
    }
    GPUFFT_CHECK(parse_window("blackman-harris") == window_type::blackman_harris);
    GPUFFT_CHECK_THROWS(parse_window("kaiser"), std::invalid_argument, "window");
}

GPUFFT_TEST(window_recurrence_holds_over_a_long_frame)
{
    // 2^22 samples in one apply(): the re-anchoring keeps the recurrence exact.
    const std::int64_t n = std::int64_t(1) << 22;
    spectral_window w(window_type::blackman_harris, n);
    std::vector<std::complex<float>> x(std::size_t(n), { 1.0f, 0.0f });
    w.apply_frame(x.data(), 2);
    double err = 0;
    for (std::int64_t i = 0; i < n; i += 997)
        err = std::max(err, std::abs(double(x[i].real()) - textbook(w.type(), i, n)));
    GPUFFT_CHECK_LE(err, 1e-6);
}

GPUFFT_TEST(band_reducer_matches_fftshift_and_mean)
{
    const std::uint64_t seed = gpufft_test::fresh_seed();
    for (std::int64_t n : { 64, 63, 1000 }) {
        // fftshift: centred bin j holds FFT bin (j - n/2) mod n
        band_reducer full(n, 0, 0, n);
        for (std::int64_t j = 0; j < n; ++j)
            GPUFFT_CHECK_EQ(full.fft_bin(j), ((j - n / 2) % n + n) % n);

        auto X = gpufft_test::random_complex<float>(std::size_t(n), seed + n);
        const std::int64_t start = n / 8, bins = 5, decim = 3;
        band_reducer r(n, start, start + bins * decim, bins);
        GPUFFT_CHECK_EQ(r.decimation(), decim);
        std::vector<double> out(bins, std::nan(""));
        r.reduce(X.data(), 2.0, out.data(), 2);
        for (std::int64_t c = 0; c < bins; ++c) {
            double ref = 0;
            for (std::int64_t k = 0; k < decim; ++k) {
                const std::int64_t j = start + c * decim + k;
                ref += std::norm(cd(X[std::size_t(((j - n / 2) % n + n) % n)]));
            }
            ref *= 2.0 / decim;
            GPUFFT_CHECK_LE(std::abs(out[c] - ref), 1e-9 * ref);
            // centre frequency in bins from DC
            GPUFFT_CHECK_LE(
                std::abs(r.channel_centre_bins(c) - (start + c * decim + 1 - n / 2)),
                1e-12);
        }
    }
}

GPUFFT_TEST(band_reducer_straddles_dc_on_many_threads)
{
    const std::int64_t n = std::int64_t(1) << 20;
    auto X =
        gpufft_test::random_complex<float>(std::size_t(n), gpufft_test::fresh_seed());
    double ref_total = 0, ref_low = 0;
    for (std::int64_t i = 0; i < n; ++i) {
        ref_total += std::norm(cd(X[i]));
        if (i >= n / 2) // the lower half of the centred band
            ref_low += std::norm(cd(X[i]));
    }
    // many channels per thread; and fewer channels than threads (channels split)
    for (std::int64_t bins :
         { std::int64_t(1) << 14, std::int64_t(2), std::int64_t(1) }) {
        band_reducer r(n, 0, 0, bins);
        std::vector<double> out(std::size_t(bins), std::nan(""));
        r.reduce(X.data(), 1.0, out.data(), 4);
        const std::int64_t d = n / bins;
        double total = 0;
        for (std::int64_t c = 0; c < bins; ++c) {
            GPUFFT_CHECK(std::isfinite(out[c]));
            total += out[c] * d;
        }
        GPUFFT_CHECK_LE(std::abs(total - ref_total), 1e-9 * ref_total);
        if (bins == 2)
            GPUFFT_CHECK_LE(std::abs(out[0] * d - ref_low), 1e-9 * ref_low);
    }
}

GPUFFT_TEST(band_reducer_rejects_bad_bands)
{
    GPUFFT_CHECK_THROWS(band_reducer(0, 0, 0, 1), std::invalid_argument, "fft_size");
    GPUFFT_CHECK_THROWS(band_reducer(64, -1, 0, 1), std::invalid_argument, "band_start");
    GPUFFT_CHECK_THROWS(band_reducer(64, 64, 0, 1), std::invalid_argument, "band_start");
    GPUFFT_CHECK_THROWS(band_reducer(64, 10, 10, 1), std::invalid_argument, "band_stop");
    GPUFFT_CHECK_THROWS(band_reducer(64, 10, 65, 1), std::invalid_argument, "band_stop");
    GPUFFT_CHECK_THROWS(band_reducer(64, 0, 0, 7), std::invalid_argument, "output_bins");
    GPUFFT_CHECK_THROWS(band_reducer(64, 0, 0, 0), std::invalid_argument, "output_bins");
    GPUFFT_CHECK_THROWS(
        band_reducer(64, 0, 0, 128), std::invalid_argument, "output_bins");
}

GPUFFT_TEST(filterbank_header_and_data_read_back)
{
    const std::string path = temp_path("gpufft_fb");
    filterbank_header h;
    h.source_name = "B0329+54";
    h.rawdatafile = "gpufft";
    h.fch1 = 1419.5;
    h.foff = 0.0125;
    h.nchans = 37;
    h.tstart = 60000.123456789;
    h.tsamp = 0.25;
    std::vector<float> spectra(3 * 37);
    for (std::size_t i = 0; i < spectra.size(); ++i)
        spectra[i] = float(i) * 0.5f + 1.0f;
    {
        filterbank_writer w(path, h);
        for (int s = 0; s < 3; ++s)
            w.write_spectrum(spectra.data() + s * 37);
        GPUFFT_CHECK_EQ(w.spectra_written(), 3);
    }
    std::int64_t header_bytes = 0;
    filterbank_header r = read_filterbank_header(path, &header_bytes);
    GPUFFT_CHECK_EQ(r.source_name, h.source_name);
    GPUFFT_CHECK_EQ(r.rawdatafile, h.rawdatafile);
    GPUFFT_CHECK_EQ(r.fch1, h.fch1);
    GPUFFT_CHECK_EQ(r.foff, h.foff);
    GPUFFT_CHECK_EQ(r.nchans, 37);
    GPUFFT_CHECK_EQ(r.nbits, 32);
    GPUFFT_CHECK_EQ(r.nifs, 1);
    GPUFFT_CHECK_EQ(r.data_type, 1);
    GPUFFT_CHECK_EQ(r.tstart, h.tstart);
    GPUFFT_CHECK_EQ(r.tsamp, h.tsamp);

    std::ifstream f(path, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(f)),
                            std::istreambuf_iterator<char>());
    GPUFFT_CHECK_EQ(std::int64_t(bytes.size()), header_bytes + 3 * 37 * 4);
    std::vector<float> data(3 * 37);
    std::memcpy(data.data(), bytes.data() + header_bytes, data.size() * 4);
    GPUFFT_CHECK(data == spectra);
    std::remove(path.c_str());

    GPUFFT_CHECK_THROWS(filterbank_writer("/nonexistent-dir/x.fil", h),
                        std::runtime_error,
                        "filterbank_path");
}

// Issue #32 item 5: turboSETI reads src_raj and src_dej from a .fil (KeyError without
// them); the recorder's fch1 and foff are Hz / 1e6, exact where that is representable.
GPUFFT_TEST(fil_header_has_pointing_and_exact_fch1)
{
    const std::string path = temp_path("gpufft_fb_pointing");
    filterbank_pointing p;
    p.src_raj = 123456.7;
    p.src_dej = -451230.25;
    p.az_start = 181.5;
    p.za_start = 12.25;
    gr::gpufft::stream::filterbank_recorder rec(path, "W3", false, {}, p);
    rec.start();
    gr::gpufft::stream::integrated_spectrum s;
    s.power = { 1.0f, 2.0f, 3.0f, 4.0f };
    s.n_integrations = 2;
    gr::gpufft::stream::spectrum_axes axes;
    axes.fch1 = 1418976234.375; // * 1e-6 gives 1418.9762343749999
    axes.foff = 1999.51171875;
    axes.tsamp = 0.5;
    rec.write(s, 1420e6, axes, 60000.5);
    rec.finish();
    std::int64_t header_bytes = 0;
    const filterbank_header h = read_filterbank_header(path, &header_bytes);
    GPUFFT_CHECK_EQ(h.fch1, 1418.976234375);
    GPUFFT_CHECK_EQ(h.foff, 1999.51171875 / 1e6);
    GPUFFT_CHECK_EQ(h.src_raj, p.src_raj);
    GPUFFT_CHECK_EQ(h.src_dej, p.src_dej);
    GPUFFT_CHECK_EQ(h.az_start, p.az_start);
    GPUFFT_CHECK_EQ(h.za_start, p.za_start);
    GPUFFT_CHECK_EQ(h.nchans, 4);

    // The keys themselves, read without read_filterbank_header (which takes their
    // absence): each must be in the header, with the default 0 when not given.
    {
        gr::gpufft::stream::filterbank_recorder plain(path, "W3", false, {});
        plain.start();
        plain.write(s, 1420e6, axes, 60000.5);
        plain.finish();
        std::ifstream f(path, std::ios::binary);
        const std::string bytes((std::istreambuf_iterator<char>(f)),
                                std::istreambuf_iterator<char>());
        for (const char* key : { "src_raj", "src_dej", "az_start", "za_start" }) {
            const auto at = bytes.find(key);
            GPUFFT_CHECK(at != std::string::npos);
            double v = -1;
            std::memcpy(&v, bytes.data() + at + std::strlen(key), sizeof v);
            GPUFFT_CHECK_EQ(v, 0.0);
        }
    }
    std::remove(path.c_str());
}

GPUFFT_TEST(pointing_out_of_range_is_refused_by_name)
{
    filterbank_pointing p;
    check_pointing(p);
    p.src_raj = 240000;
    GPUFFT_CHECK_THROWS(check_pointing(p), std::invalid_argument, "src_raj");
    p = {};
    p.src_dej = std::nan("");
    GPUFFT_CHECK_THROWS(check_pointing(p), std::invalid_argument, "src_dej");
    p = {};
    p.az_start = -1;
    GPUFFT_CHECK_THROWS(check_pointing(p), std::invalid_argument, "az_start");
    p = {};
    p.za_start = 180.5;
    GPUFFT_CHECK_THROWS(check_pointing(p), std::invalid_argument, "za_start");
}

// Issue #32 item 6: a run with no spectrum left a 0-byte .fil that every reader refuses.
GPUFFT_TEST(a_run_without_spectra_leaves_no_file)
{
    const std::string path = temp_path("gpufft_fb_empty");
    std::vector<std::string> logged;
    gr::gpufft::stream::filterbank_recorder rec(
        path, "x", false, [&](gr::gpufft::log_level, const std::string& m) {
            logged.push_back(m);
        });
    rec.start();
    GPUFFT_CHECK(::access(path.c_str(), F_OK) == 0); // made (and checked) at start
    rec.finish();
    GPUFFT_CHECK(::access(path.c_str(), F_OK) != 0);
    GPUFFT_CHECK_EQ(logged.size(), std::size_t(1));
    GPUFFT_CHECK(logged[0].find("no spectrum") != std::string::npos);
}

// Issue #32 item 6: "h5" with a .fil path was taken without a word.
GPUFFT_TEST(file_format_follows_the_extension_or_warns)
{
    using gr::gpufft::stream::resolve_file_format;
    std::string warning;
    GPUFFT_CHECK_EQ(resolve_file_format("auto", "/tmp/a.fil", warning),
                    std::string("fil"));
    GPUFFT_CHECK(warning.empty());
    GPUFFT_CHECK_EQ(resolve_file_format("auto", "/tmp/a.H5", warning), std::string("h5"));
    GPUFFT_CHECK_EQ(resolve_file_format("auto", "a.hdf5", warning), std::string("h5"));
    GPUFFT_CHECK_EQ(resolve_file_format("auto", "a.fbh5", warning), std::string("h5"));
    GPUFFT_CHECK_EQ(resolve_file_format("auto", "spectra", warning), std::string("fil"));
    GPUFFT_CHECK_EQ(resolve_file_format("auto", "", warning), std::string("fil"));
    GPUFFT_CHECK(warning.empty());
    GPUFFT_CHECK_EQ(resolve_file_format("h5", "/tmp/a.fil", warning), std::string("h5"));
    GPUFFT_CHECK(warning.find("a.fil") != std::string::npos);
    GPUFFT_CHECK_EQ(resolve_file_format("fil", "/tmp/a.h5", warning), std::string("fil"));
    GPUFFT_CHECK(warning.find("a.h5") != std::string::npos);
    GPUFFT_CHECK_EQ(resolve_file_format("fil", "/tmp/a.fil", warning),
                    std::string("fil"));
    GPUFFT_CHECK(warning.empty());
    GPUFFT_CHECK_THROWS(resolve_file_format("csv", "a.fil", warning),
                        std::invalid_argument,
                        "file_format");
}

GPUFFT_TEST_MAIN()
