/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_ACCUMULATOR_FILTERBANK_WRITER_H
#define INCLUDED_GPUFFT_ACCUMULATOR_FILTERBANK_WRITER_H

#include <cstdint>
#include <cstdio>
#include <string>

namespace gr {
namespace gpufft {
namespace accumulator {

//! The SIGPROC header fields a filterbank reader (PRESTO, sigpyproc, your) needs.
struct filterbank_header {
    std::string source_name;
    std::string rawdatafile;
    int telescope_id = 0; //!< 0: "fake" in SIGPROC's tables
    int machine_id = 0;
    int data_type = 1; //!< 1: filterbank
    double fch1 = 0.0; //!< MHz, centre of the first channel in the file
    double foff = 0.0; //!< MHz, channel step (negative: descending frequencies)
    int nchans = 0;
    int nbits = 32;
    int nifs = 1;
    double tstart = 0.0; //!< MJD of the first sample
    double tsamp = 0.0;  //!< seconds between spectra
    // Pointing: 0 unless the user gives it. Both writers store all four, because
    // turboSETI reads src_raj and src_dej from a .fil as from a .h5 (a KeyError
    // without them) and blimpy expects them in either.
    double az_start = 0.0; //!< degrees
    double za_start = 0.0; //!< degrees
    double src_raj = 0.0;  //!< hhmmss.s, as SIGPROC writes it
    double src_dej = 0.0;  //!< ddmmss.s
};

//! Where the telescope pointed: the header's src_raj, src_dej, az_start, za_start.
struct filterbank_pointing {
    double src_raj = 0.0;  //!< hhmmss.s, in [0, 240000)
    double src_dej = 0.0;  //!< ddmmss.s, in [-900000, 900000]
    double az_start = 0.0; //!< degrees, in [0, 360]
    double za_start = 0.0; //!< degrees, in [0, 180]
};

/*!
 * Throws std::invalid_argument naming the first field that is not finite or is out of
 * its range above.
 */
void check_pointing(const filterbank_pointing& p);

/*!
 * A file of spectra with a SIGPROC header: the SIGPROC .fil writer below, or the HDF5
 * filterbank writer (fbh5_writer.h). The block writes through this.
 */
class spectrum_file_writer
{
public:
    virtual ~spectrum_file_writer() = default;
    //! Appends one spectrum of header().nchans values, fch1 first.
    virtual void write_spectrum(const float* channels) = 0;
    virtual const filterbank_header& header() const = 0;
    virtual const std::string& path() const = 0;
    virtual std::int64_t spectra_written() const = 0;
};

/*!
 * Writes a SIGPROC filterbank file: the keyword header (each string as a 32-bit length
 * and its bytes, numbers in native byte order, as SIGPROC does), then one spectrum of
 * `nchans` 32-bit floats per time sample. Throws std::runtime_error naming the file
 * when it cannot be opened or written.
 */
class filterbank_writer : public spectrum_file_writer
{
public:
    filterbank_writer(const std::string& path, const filterbank_header& header);
    ~filterbank_writer() override;
    filterbank_writer(const filterbank_writer&) = delete;
    filterbank_writer& operator=(const filterbank_writer&) = delete;

    //! Appends one spectrum of header().nchans values, fch1 first.
    void write_spectrum(const float* channels) override;
    void flush();

    const filterbank_header& header() const override { return d_header; }
    const std::string& path() const override { return d_path; }
    std::int64_t spectra_written() const override { return d_spectra; }

private:
    void put(const void* data, std::size_t bytes);
    void put_string(const std::string& s);
    void put_int(const std::string& key, int value);
    void put_double(const std::string& key, double value);

    std::string d_path;
    filterbank_header d_header;
    std::FILE* d_file = nullptr;
    std::int64_t d_spectra = 0;
};

/*!
 * Parses the header of a SIGPROC filterbank file (the fields above; others are
 * skipped when their type is known). `header_bytes` receives the offset of the data.
 * Throws std::runtime_error on a file that is not a SIGPROC header.
 */
filterbank_header read_filterbank_header(const std::string& path,
                                         std::int64_t* header_bytes);

} // namespace accumulator
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_ACCUMULATOR_FILTERBANK_WRITER_H */
