/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The arithmetic of robust mode (sFFT 4.0's noisy-case algorithm) that the CPU and CUDA
// backends share, by job: constants (robust_consts.h), the time window
// (robust_window.h), a tone's fit (robust_tone_fit.h), location (robust_locate.h) and
// estimation (robust_estimate.h).

#ifndef INCLUDED_GPUFFT_ROBUST_MATH_H
#define INCLUDED_GPUFFT_ROBUST_MATH_H

#include "sparse/robust/robust_estimate.h"
#include "sparse/robust/robust_locate.h"
#include "sparse/robust/robust_tone_fit.h"
#include "sparse/robust/robust_window.h"

#endif /* INCLUDED_GPUFFT_ROBUST_MATH_H */
