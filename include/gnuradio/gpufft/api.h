/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUFFT_API_H
#define INCLUDED_GPUFFT_API_H

// The engines build without GNU Radio (the GPU machine has none), so this header does
// not include <gnuradio/attributes.h>; the macros below are what it would give us.
#if defined(_MSC_VER)
#ifdef gnuradio_gpufft_EXPORTS
#define GPUFFT_API __declspec(dllexport)
#else
#define GPUFFT_API __declspec(dllimport)
#endif
#else
#define GPUFFT_API __attribute__((visibility("default")))
#endif

#endif /* INCLUDED_GPUFFT_API_H */
