/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The HDF5 filterbank writer, read back with the HDF5 C API: layout, attributes and
// values, and a copy of the file taken after every spectrum (what a reader or a crash
// would find on disk then) opens and holds the spectra so far. Without HDF5 in the
// build, the writer must refuse with a message that says why.

#include "accumulator/fbh5_writer.h"
#include "reference.h"
#include "stream/filterbank_recorder.h"
#include "test_harness.h"
#include <unistd.h>
#include <cstdio>
#include <filesystem>
#include <random>

#ifdef GPUFFT_HAVE_HDF5
#include <hdf5.h>
#endif

using namespace gr::gpufft::accumulator;

namespace {
std::string temp_path(const char* stem)
{
    return "/tmp/" + std::string(stem) + "_" + std::to_string(getpid()) + ".h5";
}

filterbank_header test_header(int nchans)
{
    filterbank_header h;
    h.source_name = "Voyager1";
    h.rawdatafile = "gr-gpufft test";
    h.telescope_id = 6;
    h.machine_id = 20;
    h.fch1 = 8419.921875;
    h.foff = -2.7939677238464355e-06;
    h.nchans = nchans;
    h.tstart = 57650.78209490741;
    h.tsamp = 18.253611008;
    h.src_raj = 171010.0;
    h.src_dej = 120000.5;
    return h;
}
} // namespace

#ifndef GPUFFT_HAVE_HDF5

GPUFFT_TEST(refuses_without_hdf5)
{
    GPUFFT_CHECK(!fbh5_supported());
    GPUFFT_CHECK_THROWS(fbh5_writer(temp_path("gpufft_fbh5"), test_header(8)),
                        std::runtime_error,
                        "has no HDF5");
}

#else

namespace {
std::vector<float> random_spectra(std::size_t n, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> u(0.0f, 1e6f);
    std::vector<float> v(n);
    for (auto& x : v)
        x = u(rng);
    return v;
}

// An HDF5 identifier closed when it goes out of scope.
struct h5id {
    hid_t id;
    herr_t (*close)(hid_t);
    ~h5id()
    {
        if (id >= 0)
            close(id);
    }
    operator hid_t() const { return id; }
};

std::string string_attribute(hid_t on, const char* name)
{
    h5id a{ H5Aopen(on, name, H5P_DEFAULT), H5Aclose };
    GPUFFT_CHECK(a.id >= 0);
    h5id type{ H5Aget_type(a), H5Tclose };
    GPUFFT_CHECK_EQ(H5Tget_class(type), H5T_STRING);
    GPUFFT_CHECK(!H5Tis_variable_str(type));
    std::string s(H5Tget_size(type), '\0');
    GPUFFT_CHECK(H5Aread(a, type, &s[0]) >= 0);
    return s.substr(0, s.find('\0'));
}

template <typename T>
T number_attribute(hid_t on, const char* name, hid_t memory_type)
{
    h5id a{ H5Aopen(on, name, H5P_DEFAULT), H5Aclose };
    GPUFFT_CHECK(a.id >= 0);
    T v{};
    GPUFFT_CHECK(H5Aread(a, memory_type, &v) >= 0);
    return v;
}

// Opens `path` as a reader would and checks it holds `spectra` (count x nchans).
void check_file(const std::string& path,
                const filterbank_header& h,
                const std::vector<float>& spectra,
                std::size_t count,
                bool expect_filters)
{
    const std::size_t nchans = std::size_t(h.nchans);
    h5id file{ H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose };
    GPUFFT_CHECK(file.id >= 0);
    GPUFFT_CHECK_EQ(string_attribute(file, "CLASS"), std::string("FILTERBANK"));
    GPUFFT_CHECK_EQ(string_attribute(file, "VERSION"), std::string("1.0"));

    h5id data{ H5Dopen2(file, "data", H5P_DEFAULT), H5Dclose };
    h5id mask{ H5Dopen2(file, "mask", H5P_DEFAULT), H5Dclose };
    GPUFFT_CHECK(data.id >= 0 && mask.id >= 0);
    for (hid_t d : { hid_t(data), hid_t(mask) }) {
        h5id space{ H5Dget_space(d), H5Sclose };
        hsize_t dims[3] = { 99, 99, 99 }, max_dims[3] = { 0, 0, 0 };
        GPUFFT_CHECK_EQ(H5Sget_simple_extent_ndims(space), 3);
        H5Sget_simple_extent_dims(space, dims, max_dims);
        GPUFFT_CHECK_EQ(dims[0], hsize_t(count));
        GPUFFT_CHECK_EQ(dims[1], hsize_t(1));
        GPUFFT_CHECK_EQ(dims[2], hsize_t(nchans));
        GPUFFT_CHECK(max_dims[0] == H5S_UNLIMITED);
        h5id dcpl{ H5Dget_create_plist(d), H5Pclose };
        GPUFFT_CHECK_EQ(H5Pget_layout(dcpl), H5D_CHUNKED);
        hsize_t chunk[3] = { 0, 0, 0 };
        GPUFFT_CHECK_EQ(H5Pget_chunk(dcpl, 3, chunk), 3);
        GPUFFT_CHECK_EQ(chunk[0], hsize_t(1));
        GPUFFT_CHECK_EQ(chunk[2], hsize_t(nchans));
        GPUFFT_CHECK_EQ(H5Pget_nfilters(dcpl) > 0, expect_filters);
    }
    h5id data_type{ H5Dget_type(data), H5Tclose };
    GPUFFT_CHECK(H5Tequal(data_type, H5T_IEEE_F32LE) > 0);
    h5id mask_type{ H5Dget_type(mask), H5Tclose };
    GPUFFT_CHECK(H5Tequal(mask_type, H5T_STD_U8LE) > 0);

    if (count > 0) {
        std::vector<float> got(count * nchans, std::nanf(""));
        GPUFFT_CHECK(
            H5Dread(data, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, got.data()) >=
            0);
        GPUFFT_CHECK(std::equal(got.begin(), got.end(), spectra.begin()));
        std::vector<unsigned char> m(count * nchans, 7);
        GPUFFT_CHECK(
            H5Dread(mask, H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, m.data()) >=
            0);
        for (unsigned char v : m)
            GPUFFT_CHECK_EQ(int(v), 0);
    }

    GPUFFT_CHECK_EQ(number_attribute<int>(data, "nchans", H5T_NATIVE_INT), h.nchans);
    GPUFFT_CHECK_EQ(number_attribute<int>(data, "nbits", H5T_NATIVE_INT), 32);
    GPUFFT_CHECK_EQ(number_attribute<int>(data, "nifs", H5T_NATIVE_INT), 1);
    GPUFFT_CHECK_EQ(number_attribute<int>(data, "data_type", H5T_NATIVE_INT), 1);
    GPUFFT_CHECK_EQ(number_attribute<int>(data, "telescope_id", H5T_NATIVE_INT),
                    h.telescope_id);
    GPUFFT_CHECK_EQ(number_attribute<int>(data, "machine_id", H5T_NATIVE_INT),
                    h.machine_id);
    GPUFFT_CHECK_EQ(number_attribute<double>(data, "fch1", H5T_NATIVE_DOUBLE), h.fch1);
    GPUFFT_CHECK_EQ(number_attribute<double>(data, "foff", H5T_NATIVE_DOUBLE), h.foff);
    GPUFFT_CHECK_EQ(number_attribute<double>(data, "tstart", H5T_NATIVE_DOUBLE),
                    h.tstart);
    GPUFFT_CHECK_EQ(number_attribute<double>(data, "tsamp", H5T_NATIVE_DOUBLE), h.tsamp);
    GPUFFT_CHECK_EQ(number_attribute<double>(data, "src_raj", H5T_NATIVE_DOUBLE),
                    h.src_raj);
    GPUFFT_CHECK_EQ(number_attribute<double>(data, "src_dej", H5T_NATIVE_DOUBLE),
                    h.src_dej);
    GPUFFT_CHECK_EQ(number_attribute<double>(data, "az_start", H5T_NATIVE_DOUBLE), 0.0);
    GPUFFT_CHECK_EQ(number_attribute<double>(data, "za_start", H5T_NATIVE_DOUBLE), 0.0);
    GPUFFT_CHECK_EQ(string_attribute(data, "source_name"), h.source_name);
    GPUFFT_CHECK_EQ(string_attribute(data, "rawdatafile"), h.rawdatafile);
}
} // namespace

GPUFFT_TEST(layout_attributes_and_values_after_every_spectrum)
{
    GPUFFT_CHECK(fbh5_supported());
    const std::uint64_t seed = gpufft_test::fresh_seed();
    std::printf("  seed %llu\n", (unsigned long long)seed);
    for (bool compress : { true, false }) {
        for (int nchans : { 1, 37, 4096 }) {
            const std::string path = temp_path("gpufft_fbh5");
            const std::string copy = path + ".copy";
            const filterbank_header h = test_header(nchans);
            const std::size_t count = 5;
            const auto spectra = random_spectra(count * std::size_t(nchans), seed);
            std::vector<std::string> logged;
            fbh5_options o;
            o.compress = compress;
            o.log = [&](gr::gpufft::log_level, const std::string& m) {
                logged.push_back(m);
            };
            fbh5_writer w(path, h, o);
            // The choice of compression is said once, naming the file.
            GPUFFT_CHECK_EQ(logged.size(), std::size_t(1));
            GPUFFT_CHECK(logged[0].find(path) != std::string::npos);
            GPUFFT_CHECK(logged[0].find(to_string(w.compression())) != std::string::npos);
            if (!compress)
                GPUFFT_CHECK(w.compression() == fbh5_compression::none);
            const bool filters = w.compression() != fbh5_compression::none;
            for (std::size_t s = 0; s <= count; ++s) {
                if (s > 0)
                    w.write_spectrum(spectra.data() + (s - 1) * std::size_t(nchans));
                GPUFFT_CHECK_EQ(w.spectra_written(), std::int64_t(s));
                // What is on disk now, read through a copy: the writer still holds
                // the original open.
                std::filesystem::copy_file(
                    path, copy, std::filesystem::copy_options::overwrite_existing);
                check_file(copy, h, spectra, s, filters);
            }
            std::remove(copy.c_str());
            std::remove(path.c_str());
        }
    }
}

GPUFFT_TEST(compression_follows_the_plugins)
{
    // The plugins this HDF5 finds decide: bitshuffle + LZ4 first, LZ4 next, else none.
    const std::string path = temp_path("gpufft_fbh5_c");
    fbh5_writer w(path, test_header(64));
    const bool bitshuffle = H5Zfilter_avail(32008) > 0;
    const bool lz4 = H5Zfilter_avail(32004) > 0;
    std::printf("  plugins: bitshuffle %d, lz4 %d; writer: %s\n",
                int(bitshuffle),
                int(lz4),
                to_string(w.compression()).c_str());
    GPUFFT_CHECK(w.compression() == (bitshuffle ? fbh5_compression::bitshuffle_lz4
                                     : lz4      ? fbh5_compression::lz4
                                                : fbh5_compression::none));
    std::remove(path.c_str());
}

// Issue #32 item 5: the block's pointing parameters reach the .h5 as they reach the
// .fil, and fch1 is Hz / 1e6 (exact here), not Hz * 1e-6.
GPUFFT_TEST(recorder_writes_pointing_and_exact_fch1)
{
    const std::string path = temp_path("gpufft_fbh5_pointing");
    filterbank_pointing p;
    p.src_raj = 53456.25;
    p.src_dej = 221502.5;
    p.az_start = 270.125;
    p.za_start = 45.5;
    gr::gpufft::stream::filterbank_recorder rec(path, "W3", true, {}, p);
    rec.start();
    gr::gpufft::stream::integrated_spectrum s;
    s.power = { 1.0f, 2.0f };
    gr::gpufft::stream::spectrum_axes axes;
    axes.fch1 = 1418976234.375;
    axes.foff = 1999.51171875;
    axes.tsamp = 0.5;
    rec.write(s, 1420e6, axes, 60000.5);
    rec.finish();
    h5id file{ H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose };
    GPUFFT_CHECK(file.id >= 0);
    h5id data{ H5Dopen2(file, "data", H5P_DEFAULT), H5Dclose };
    auto attr = [&](const char* name) {
        return number_attribute<double>(data, name, H5T_NATIVE_DOUBLE);
    };
    GPUFFT_CHECK_EQ(attr("fch1"), 1418.976234375);
    GPUFFT_CHECK_EQ(attr("foff"), 1999.51171875 / 1e6);
    GPUFFT_CHECK_EQ(attr("src_raj"), p.src_raj);
    GPUFFT_CHECK_EQ(attr("src_dej"), p.src_dej);
    GPUFFT_CHECK_EQ(attr("az_start"), p.az_start);
    GPUFFT_CHECK_EQ(attr("za_start"), p.za_start);
    std::remove(path.c_str());
}

GPUFFT_TEST(bad_path_and_header_are_refused)
{
    GPUFFT_CHECK_THROWS(fbh5_writer("/nonexistent-dir/x.h5", test_header(8)),
                        std::runtime_error,
                        "filterbank_path: cannot create '/nonexistent-dir/x.h5'");
    GPUFFT_CHECK_THROWS(fbh5_writer(temp_path("gpufft_fbh5_b"), test_header(0)),
                        std::invalid_argument,
                        "nchans");
}

#endif

GPUFFT_TEST_MAIN()
