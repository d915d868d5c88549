/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The dense path's joint fit of tones that share a window lobe, by job: linear algebra
// (robust_linalg.h), the model (robust_pair_model.h), the fit (robust_pair_fit.h) and
// the clusters (robust_pair_clusters.h).

#ifndef INCLUDED_GPUFFT_ROBUST_PAIRS_H
#define INCLUDED_GPUFFT_ROBUST_PAIRS_H

#include "sparse/robust/robust_pair_clusters.h"

#endif /* INCLUDED_GPUFFT_ROBUST_PAIRS_H */
