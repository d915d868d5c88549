/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_ACCUMULATOR_FBH5_WRITER_H
#define INCLUDED_GPUFFT_ACCUMULATOR_FBH5_WRITER_H

#include "accumulator/filterbank_writer.h"
#include <gnuradio/gpufft/log.h>
#include <cstdint>
#include <memory>
#include <string>

namespace gr {
namespace gpufft {
namespace accumulator {

//! Whether this build can write HDF5 (libhdf5 was found when it was configured).
bool fbh5_supported();

//! How the `data` and `mask` datasets are compressed.
enum class fbh5_compression {
    none,           //!< plain chunks: every HDF5 reader opens them
    lz4,            //!< HDF5's byte shuffle, then LZ4 (filter 32004)
    bitshuffle_lz4, //!< bitshuffle with LZ4 inside (filter 32008), as blimpy writes
};

//! "none", "shuffle + LZ4 (HDF5 filter 32004)", "bitshuffle + LZ4 (HDF5 filter 32008)".
std::string to_string(fbh5_compression c);

struct fbh5_options {
    //! The best filter the HDF5 plugins offer (bitshuffle + LZ4, else LZ4), or none.
    //! With false, the chunks are always plain.
    bool compress = true;
    //! Where the choice of compression is reported (stderr when empty).
    log_handler log;
};

/*!
 * Writes Breakthrough Listen's HDF5 filterbank (FBH5) as rawspec -j and blimpy do:
 * file attributes CLASS = "FILTERBANK" and VERSION = "1.0"; a float32 dataset `data` of
 * shape (time, 1, nchans), chunked one spectrum per chunk and extensible in time, whose
 * attributes are the SIGPROC header (fch1 and foff in MHz, tstart in MJD, tsamp in s,
 * source_name, ...); a uint8 dataset `mask` of the same shape (all zero: nothing
 * flagged). Each spectrum extends both datasets and flushes the file, so it is a valid
 * HDF5 file after every spectrum. The filter plugins are looked up when the writer is
 * made (HDF5's plugin path) and the choice is logged.
 *
 * Throws std::runtime_error naming "filterbank_path" and the file when it cannot be
 * created or written, and when this build has no HDF5 (fbh5_supported() is false).
 */
class fbh5_writer : public spectrum_file_writer
{
public:
    fbh5_writer(const std::string& path,
                const filterbank_header& header,
                const fbh5_options& options = {});
    ~fbh5_writer() override;
    fbh5_writer(const fbh5_writer&) = delete;
    fbh5_writer& operator=(const fbh5_writer&) = delete;

    void write_spectrum(const float* channels) override;
    const filterbank_header& header() const override { return d_header; }
    const std::string& path() const override { return d_path; }
    std::int64_t spectra_written() const override { return d_spectra; }
    fbh5_compression compression() const { return d_compression; }

private:
    struct handles;
    std::string d_path;
    filterbank_header d_header;
    fbh5_compression d_compression = fbh5_compression::none;
    std::int64_t d_spectra = 0;
    std::unique_ptr<handles> d_h;
};

} // namespace accumulator
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_ACCUMULATOR_FBH5_WRITER_H */
