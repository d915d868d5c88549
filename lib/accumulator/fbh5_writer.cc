/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "accumulator/fbh5_writer.h"
#include <stdexcept>

#ifdef GPUFFT_HAVE_HDF5
#include <hdf5.h>
#include <hdf5_hl.h>
#include <vector>
#endif

namespace gr {
namespace gpufft {
namespace accumulator {

std::string to_string(fbh5_compression c)
{
    switch (c) {
    case fbh5_compression::none:
        return "none";
    case fbh5_compression::lz4:
        return "shuffle + LZ4 (HDF5 filter 32004)";
    case fbh5_compression::bitshuffle_lz4:
        return "bitshuffle + LZ4 (HDF5 filter 32008)";
    }
    return "unknown";
}

#ifndef GPUFFT_HAVE_HDF5

bool fbh5_supported() { return false; }

struct fbh5_writer::handles {
};

fbh5_writer::fbh5_writer(const std::string& path,
                         const filterbank_header& header,
                         const fbh5_options&)
    : d_path(path), d_header(header)
{
    throw std::runtime_error("filterbank_path: cannot write the HDF5 filterbank '" +
                             path +
                             "': this build of gr-gpufft has no HDF5 (install "
                             "libhdf5-dev, configure again and rebuild)");
}

fbh5_writer::~fbh5_writer() = default;

void fbh5_writer::write_spectrum(const float*) {}

#else

bool fbh5_supported() { return true; }

namespace {
constexpr H5Z_filter_t filter_lz4 = 32004;
constexpr H5Z_filter_t filter_bitshuffle = 32008;
// Bitshuffle's options as blimpy (hdf5plugin) passes them: block size 0 (the filter's
// default) and compression 2 (LZ4 inside the filter).
const unsigned bitshuffle_options[2] = { 0, 2 };

// HDF5 prints its error stack on stderr unless told otherwise; our messages go through
// the log handler and exceptions, so the stack is silenced while we call HDF5 and read
// into the exception instead. The caller's setting comes back afterwards.
class quiet_hdf5_errors
{
public:
    quiet_hdf5_errors()
    {
        H5Eget_auto2(H5E_DEFAULT, &d_func, &d_data);
        H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    }
    ~quiet_hdf5_errors() { H5Eset_auto2(H5E_DEFAULT, d_func, d_data); }
    quiet_hdf5_errors(const quiet_hdf5_errors&) = delete;
    quiet_hdf5_errors& operator=(const quiet_hdf5_errors&) = delete;

private:
    H5E_auto2_t d_func = nullptr;
    void* d_data = nullptr;
};

herr_t collect_error(unsigned, const H5E_error2_t* e, void* client)
{
    auto* s = static_cast<std::string*>(client);
    if (e->desc && *e->desc) {
        if (!s->empty())
            *s += "; ";
        *s += e->desc;
    }
    return 0;
}

std::string hdf5_error_stack()
{
    std::string s;
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, collect_error, &s);
    H5Eclear2(H5E_DEFAULT);
    return s.empty() ? std::string("HDF5 gave no reason") : s;
}

// An HDF5 identifier closed by its own close function when it goes out of scope.
class hid
{
public:
    hid(hid_t id, herr_t (*close)(hid_t)) : d_id(id), d_close(close) {}
    ~hid()
    {
        if (d_id >= 0)
            d_close(d_id);
    }
    hid(const hid&) = delete;
    hid& operator=(const hid&) = delete;
    operator hid_t() const { return d_id; }
    bool ok() const { return d_id >= 0; }

private:
    hid_t d_id;
    herr_t (*d_close)(hid_t);
};

bool filter_encodes(H5Z_filter_t id)
{
    // H5Zfilter_avail loads the plugin from HDF5's plugin path when it is not built in.
    const htri_t avail = H5Zfilter_avail(id);
    unsigned config = 0;
    const bool ok = avail > 0 && H5Zget_filter_info(id, &config) >= 0 &&
                    (config & H5Z_FILTER_CONFIG_ENCODE_ENABLED) != 0;
    H5Eclear2(H5E_DEFAULT);
    return ok;
}

fbh5_compression choose_compression(bool compress)
{
    if (!compress)
        return fbh5_compression::none;
    if (filter_encodes(filter_bitshuffle))
        return fbh5_compression::bitshuffle_lz4;
    if (filter_encodes(filter_lz4))
        return fbh5_compression::lz4;
    return fbh5_compression::none;
}
} // namespace

struct fbh5_writer::handles {
    hid_t file = -1;
    hid_t data = -1;
    hid_t mask = -1;
    std::vector<unsigned char> zeros; // one spectrum's mask
    ~handles()
    {
        if (mask >= 0)
            H5Dclose(mask);
        if (data >= 0)
            H5Dclose(data);
        if (file >= 0)
            H5Fclose(file);
    }
};

fbh5_writer::fbh5_writer(const std::string& path,
                         const filterbank_header& header,
                         const fbh5_options& options)
    : d_path(path), d_header(header), d_h(std::make_unique<handles>())
{
    if (header.nchans < 1)
        throw std::invalid_argument("filterbank: nchans must be >= 1");
    if (header.nbits != 32)
        throw std::invalid_argument("filterbank: only nbits = 32 (float) is written");
    quiet_hdf5_errors quiet;
    d_compression = choose_compression(options.compress);
    auto fail = [&](const std::string& what) {
        return std::runtime_error("filterbank_path: cannot " + what + " '" + path +
                                  "': " + hdf5_error_stack());
    };
    auto check = [&](herr_t status, const char* what) {
        if (status < 0)
            throw fail(what);
    };

    // No file lock: a reader (a live plot, h5py in another process) may open the file
    // while spectra are being added; it is consistent after each flush.
    hid fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
    if (!fapl.ok())
        throw fail("create");
#if H5_VERSION_GE(1, 12, 1) || \
    (H5_VERS_MAJOR == 1 && H5_VERS_MINOR == 10 && H5_VERS_RELEASE >= 7)
    check(H5Pset_file_locking(fapl, 0, 1), "create");
#endif
    d_h->file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (d_h->file < 0)
        throw fail("create");
    log_message(options.log,
                log_level::info,
                "HDF5 filterbank " + path + ": compression " + to_string(d_compression) +
                    (d_compression == fbh5_compression::bitshuffle_lz4 ? ""
                     : options.compress
                         ? " (the bitshuffle HDF5 filter plugin, 32008, was not "
                           "found in HDF5's plugin path)"
                         : ""));


    auto string_attribute = [&](hid_t on, const char* name, const std::string& value) {
        // Fixed-length, null-terminated strings, as rawspec writes them.
        hid type(H5Tcopy(H5T_C_S1), H5Tclose);
        hid space(H5Screate(H5S_SCALAR), H5Sclose);
        check(type.ok() && space.ok() ? 0 : -1, "write");
        check(H5Tset_size(type, value.size() + 1), "write");
        check(H5Tset_strpad(type, H5T_STR_NULLTERM), "write");
        hid a(H5Acreate2(on, name, type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
        if (!a.ok())
            throw fail(std::string("write attribute ") + name + " of");
        check(H5Awrite(a, type, value.c_str()), "write");
    };
    auto number_attribute = [&](const char* name, hid_t type, const void* value) {
        hid space(H5Screate(H5S_SCALAR), H5Sclose);
        hid a(H5Acreate2(d_h->data, name, type, space, H5P_DEFAULT, H5P_DEFAULT),
              H5Aclose);
        if (!a.ok())
            throw fail(std::string("write attribute ") + name + " of");
        check(H5Awrite(a, type, value), "write");
    };
    auto int_attribute = [&](const char* name, int value) {
        number_attribute(name, H5T_NATIVE_INT, &value);
    };
    auto double_attribute = [&](const char* name, double value) {
        number_attribute(name, H5T_NATIVE_DOUBLE, &value);
    };

    string_attribute(d_h->file, "CLASS", "FILTERBANK");
    string_attribute(d_h->file, "VERSION", "1.0");

    // (time, feed, channel), extensible in time, one spectrum per chunk.
    const hsize_t nchans = hsize_t(header.nchans);
    const hsize_t dims[3] = { 0, 1, nchans };
    const hsize_t max_dims[3] = { H5S_UNLIMITED, 1, nchans };
    const hsize_t chunk[3] = { 1, 1, nchans };
    hid space(H5Screate_simple(3, dims, max_dims), H5Sclose);
    hid dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    check(space.ok() && dcpl.ok() ? 0 : -1, "create");
    check(H5Pset_chunk(dcpl, 3, chunk), "create");
    if (d_compression == fbh5_compression::bitshuffle_lz4) {
        check(H5Pset_filter(
                  dcpl, filter_bitshuffle, H5Z_FLAG_MANDATORY, 2, bitshuffle_options),
              "create");
    } else if (d_compression == fbh5_compression::lz4) {
        check(H5Pset_shuffle(dcpl), "create");
        check(H5Pset_filter(dcpl, filter_lz4, H5Z_FLAG_MANDATORY, 0, nullptr), "create");
    }
    d_h->data = H5Dcreate2(
        d_h->file, "data", H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (d_h->data < 0)
        throw fail("create the data dataset in");
    d_h->mask = H5Dcreate2(
        d_h->file, "mask", H5T_STD_U8LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (d_h->mask < 0)
        throw fail("create the mask dataset in");
    for (hid_t d : { d_h->data, d_h->mask }) {
        check(H5DSset_label(d, 0, "time"), "write");
        check(H5DSset_label(d, 1, "feed_id"), "write");
        check(H5DSset_label(d, 2, "frequency"), "write");
    }

    int_attribute("telescope_id", header.telescope_id);
    int_attribute("machine_id", header.machine_id);
    int_attribute("data_type", header.data_type);
    int_attribute("nchans", header.nchans);
    int_attribute("nbits", header.nbits);
    int_attribute("nifs", header.nifs);
    double_attribute("fch1", header.fch1);
    double_attribute("foff", header.foff);
    double_attribute("tstart", header.tstart);
    double_attribute("tsamp", header.tsamp);
    double_attribute("az_start", header.az_start);
    double_attribute("za_start", header.za_start);
    double_attribute("src_raj", header.src_raj);
    double_attribute("src_dej", header.src_dej);
    string_attribute(d_h->data, "source_name", header.source_name);
    string_attribute(d_h->data, "rawdatafile", header.rawdatafile);

    d_h->zeros.assign(nchans, 0);
    check(H5Fflush(d_h->file, H5F_SCOPE_LOCAL), "write");
}

fbh5_writer::~fbh5_writer()
{
    quiet_hdf5_errors quiet;
    d_h.reset();
}

void fbh5_writer::write_spectrum(const float* channels)
{
    quiet_hdf5_errors quiet;
    auto check = [&](herr_t status) {
        if (status < 0)
            throw std::runtime_error("filterbank_path: cannot write '" + d_path +
                                     "': " + hdf5_error_stack());
    };
    const hsize_t nchans = hsize_t(d_header.nchans);
    const hsize_t dims[3] = { hsize_t(d_spectra) + 1, 1, nchans };
    const hsize_t start[3] = { hsize_t(d_spectra), 0, 0 };
    const hsize_t count[3] = { 1, 1, nchans };
    hid memory(H5Screate_simple(1, &nchans, nullptr), H5Sclose);
    check(memory.ok() ? 0 : -1);
    auto append = [&](hid_t dataset, hid_t type, const void* row) {
        check(H5Dset_extent(dataset, dims));
        hid file_space(H5Dget_space(dataset), H5Sclose);
        check(file_space.ok() ? 0 : -1);
        check(H5Sselect_hyperslab(
            file_space, H5S_SELECT_SET, start, nullptr, count, nullptr));
        check(H5Dwrite(dataset, type, memory, file_space, H5P_DEFAULT, row));
    };
    append(d_h->data, H5T_NATIVE_FLOAT, channels);
    append(d_h->mask, H5T_NATIVE_UCHAR, d_h->zeros.data());
    // Flushed after every spectrum: the file on disk is complete at each integration.
    check(H5Fflush(d_h->file, H5F_SCOPE_LOCAL));
    ++d_spectra;
}

#endif

} // namespace accumulator
} // namespace gpufft
} // namespace gr
