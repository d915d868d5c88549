/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "nufft/nufft3_params.h"
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <exception>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace gr {
namespace gpufft {
namespace nufft {

namespace {

constexpr double pi = 3.14159265358979323846;
constexpr std::int64_t max_axis_cells = std::int64_t(1) << 30;

//! Gauss-Legendre nodes and weights on [-1, 1] (Newton on the Legendre recurrence).
void gauss_legendre(int n, std::vector<double>& t, std::vector<double>& w)
{
    t.resize(n);
    w.resize(n);
    for (int i = 0; i < n; ++i) {
        double x = std::cos(pi * (i + 0.75) / (n + 0.5));
        double dp = 1;
        for (int it = 0; it < 100; ++it) {
            double p0 = 1, p1 = x;
            for (int k = 2; k <= n; ++k) {
                const double p2 = ((2 * k - 1) * x * p1 - (k - 1) * p0) / k;
                p0 = p1;
                p1 = p2;
            }
            dp = n * (x * p1 - p0) / (x * x - 1);
            const double dx = p1 / dp;
            x -= dx;
            if (std::abs(dx) < 1e-16)
                break;
        }
        t[i] = x;
        w[i] = 2 / ((1 - x * x) * dp * dp);
    }
}

//! Cells per axis for the ES kernel: the smallest M with room for both supports,
//! (M / (2 sigma) - w / 2)^2 >= X S M / (2 pi), split evenly between the two sides.
axis_geometry es_axis(double X, double S, double sigma, double w)
{
    const double p = X * S * sigma / pi;
    const double a = 0.5 * (p + std::sqrt(p * p + 2 * p * w));
    const double m = std::ceil(2 * sigma * (a + 0.5 * w));
    axis_geometry g;
    g.cells =
        m > 4e18
            ? std::numeric_limits<std::int64_t>::max()
            : next_smooth_even(std::max<std::int64_t>(std::int64_t(m), 2 * int(w) + 4));
    const double U = std::sqrt(X * S * double(g.cells) / (2 * pi)); // X/h == S/ds
    g.h = X / U;
    g.ds = 2 * pi / (double(g.cells) * g.h);
    return g;
}

//! Cells per axis for the Gaussian, as Table 1 of the paper: dx = pi / (R S),
//! M >= 2 (X S R^2 / pi + 2 pi R b).
axis_geometry gaussian_axis(double X, double S, double R, double msp)
{
    const double m = std::ceil(2 * (X * S * R * R / pi + R * msp));
    axis_geometry g;
    g.cells = m > 4e18 ? std::numeric_limits<std::int64_t>::max()
                       : next_smooth_even(std::int64_t(m));
    g.h = pi / (R * S);
    g.ds = 2 * pi / (double(g.cells) * g.h);
    return g;
}

/*!
 * The supports of an axis (axis_geometry::in_lo, in_hi, out_half) for points within X
 * of x_centre and S of s_centre, placed as split_coordinate does with half-width hw and
 * w taps. A source at u = (x - x_centre) / h, |u| <= U = X / h, has its first tap at
 * ceil(u - hw) + M/2 >= M/2 - U - hw and its last below M/2 + U - hw + w; a target at
 * |v| <= V = S / ds reads m = ceil(v - hw) + q (q < w), so -V - hw <= m < V - hw + w.
 * `margin` cells each side absorb the rounding of u and v past U and V (an ulp of the
 * extents may move a ceil by one cell). Ranges that run off the grid cover all of it.
 */
void set_supports(axis_geometry& g, double X, double S, double hw, int w)
{
    constexpr std::int64_t margin = 2;
    const std::int64_t M = g.cells;
    const double U = X / g.h, V = S / g.ds, half = double(M / 2);
    const double lo = std::floor(half - U - hw) - margin;
    const double hi = std::ceil(half + U - hw + w) + margin;
    if (!(lo >= 0 && hi <= double(M))) {
        g.in_lo = 0;
        g.in_hi = M;
    } else {
        g.in_lo = std::int64_t(lo);
        g.in_hi = std::int64_t(hi);
    }
    // |m| <= floor(V + hw) below 0 and m <= ceil(V - hw + w) - 1 above it.
    const double a = std::max(std::floor(V + hw) + 1, std::ceil(V - hw + w)) + margin;
    g.out_half = a >= half ? M / 2 : std::int64_t(a);
}

//! Half-widths that are never zero: a point set with no spread still needs a grid, and
//! any X' >= X, S' >= S is a valid bound.
void safe_halves(double& X, double& S)
{
    if (X <= 0 && S <= 0)
        X = S = 1;
    else if (X <= 0)
        X = 1 / S;
    else if (S <= 0)
        S = 1 / X;
}

} // namespace

std::int64_t next_smooth_even(std::int64_t n)
{
    if (n <= 2)
        return 2;
    // Enumerate 2^a 3^b 5^c (a >= 1) directly: the gaps between such numbers grow with n
    // (hundreds of thousands near 1e8), so stepping through the integers is too slow.
    std::int64_t best = std::numeric_limits<std::int64_t>::max();
    for (std::int64_t p5 = 1; p5 < best && p5 <= std::int64_t(1) << 62; p5 *= 5)
        for (std::int64_t p35 = p5; p35 < best && p35 <= std::int64_t(1) << 62;
             p35 *= 3) {
            std::int64_t v = 2 * p35;
            while (v < n)
                v *= 2;
            best = std::min(best, v);
        }
    return best;
}

std::string format_bytes(double bytes)
{
    char buf[64];
    if (bytes >= 1024.0 * 1024 * 1024)
        std::snprintf(buf, sizeof buf, "%.2f GiB", bytes / (1024.0 * 1024 * 1024));
    else
        std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / (1024.0 * 1024));
    return buf;
}

void validate_eps(double eps, precision prec)
{
    // Below 1e-12 in double, rounding of the phases x s (hundreds of radians) in any
    // evaluation, the direct sum included, is as large as eps: 1e-13 landed at 1e-13.
    const double lo = prec == precision::single ? 1e-6 : 1e-12;
    if (!(eps >= lo && eps <= 0.1)) {
        std::ostringstream os;
        os << "eps: " << eps << " is outside the supported range [" << lo << ", 0.1] for "
           << to_string(prec) << " precision";
        throw std::invalid_argument(os.str());
    }
}

kernel_spec make_es_kernel(double eps, double sigma, int dim)
{
    // A tensor-product kernel's error grows with the number of axes; 1D and 2D keep
    // margin on the rules below (20 seeds per eps and layout, test_nufft3_cpu), 3D
    // crowded sources reached 1.01 eps at 1e-4: it aims at eps / 3.
    const double asked = eps;
    eps /= dim == 3 ? 3 : 1;
    kernel_spec k;
    k.kind = kernel_es;
    int w;
    double beta;
    if (sigma == 2.0) {
        // FINUFFT's rule for sigma = 2, one tap wider: a type-3 transform passes through
        // two kernels (spread and interpolate), so each must be about twice as accurate.
        w = int(std::ceil(std::log10(1 / eps))) + 2;
        w = std::max(w, 2);
        const double beta_over_w = w == 2 ? 2.20 : w == 3 ? 2.26 : w == 4 ? 2.38 : 2.30;
        beta = beta_over_w * w;
    } else {
        // FINUFFT's low-upsampling rule aims at eps for one kernel; as above, spreading
        // and interpolation each get a share, and eps / 16 keeps about 2x margin where
        // the ceiling leaves no slack (with eps / 8, crowded 1-D sources at 1.75 and 10
        // taps reached 1.02 eps over 20 seeds, clustered 3-D ones 2.6 eps at 5 taps).
        w = int(std::ceil(std::log(16 / eps) / (pi * std::sqrt(1 - 1 / sigma))));
        w = std::max(w, 2);
        beta = 0.97 * pi * (1 - 0.5 / sigma) * w;
    }
    if (w > max_es_width) {
        std::ostringstream os;
        os << "eps: " << asked << " needs an ES kernel of " << w << " taps at upsampling "
           << sigma << " (at most " << max_es_width
           << "); use upsampling 2 or a larger eps";
        throw std::invalid_argument(os.str());
    }
    k.taps = w;
    k.half_width = 0.5 * w;
    k.beta = beta;
    // The transform integrand oscillates at most about w / 2 times over the support.
    const int q = std::min(max_quadrature, 2 + (3 * w) / 2 + 4);
    std::vector<double> t, wt;
    gauss_legendre(2 * q, t, wt);
    int j = 0;
    for (int i = 0; i < 2 * q; ++i) {
        if (t[i] <= 0)
            continue;
        k.quad_t[j] = t[i];
        // khat(xi) = half * int_{-1}^{1} es(t) cos(xi half t) dt, even in t.
        k.quad_a[j] =
            2 * k.half_width * wt[i] * std::exp(beta * (std::sqrt(1 - t[i] * t[i]) - 1));
        ++j;
    }
    k.quad_n = j;
    return k;
}

kernel_spec make_gaussian_kernel(double eps, double R)
{
    // Eq. 6: b = log(4 alpha b / e + 9 alpha / e) / gamma, by successive approximation.
    const double alpha = 2 + 1 / std::sqrt(2 * pi);
    const double gamma = pi * pi * (1 - 2 / (R * R));
    double b = 1;
    for (int i = 0; i < 100; ++i)
        b = std::log(4 * alpha * b / eps + 9 * alpha / eps) / gamma;
    const int msp = int(std::ceil(2 * pi * b));
    if (2 * msp + 1 > max_taps) {
        std::ostringstream os;
        os << "upsampling: R = " << R << " gives the Gaussian kernel " << 2 * msp + 1
           << " taps at eps = " << eps << " (at most " << max_taps << "); use R >= 2.2";
        throw std::invalid_argument(os.str());
    }
    kernel_spec k;
    k.kind = kernel_gaussian;
    k.gauss_b = b;
    k.taps = 2 * msp + 1;
    k.half_width = msp + 0.5;
    return k;
}

double correction_gain(const kernel_spec& k, double sigma, int dim)
{
    // Both corrections divide by the kernel's transform, which falls by this much
    // towards the band edge pi / sigma: rounding in the grid is amplified by as much.
    return std::pow(
        kernel_transform<double>(k, 0) / kernel_transform<double>(k, pi / sigma), dim);
}

double rounding_floor(const kernel_spec& k, double sigma, int dim, precision prec)
{
    const double unit = prec == precision::single ? 6e-8 : 1.1e-16;
    return 2 * unit * correction_gain(k, sigma, dim);
}

kernel_spec
make_kernel(nufft_kernel kind, int dim, double eps, double sigma, precision prec)
{
    kernel_spec k = kind == nufft_kernel::es ? make_es_kernel(eps, sigma, dim)
                                             : make_gaussian_kernel(eps, sigma);
    const double ratio = correction_gain(k, sigma, dim);
    const double floor = rounding_floor(k, sigma, dim, prec);
    if (floor > eps) {
        std::ostringstream os;
        os << "eps: " << eps << " is below what the " << to_string(kind)
           << " kernel at upsampling " << sigma << " reaches in " << to_string(prec)
           << " precision (about " << floor
           << ": its correction factors amplify rounding by " << ratio
           << "); use double precision, the es kernel at upsampling 2, or a larger eps";
        throw std::invalid_argument(os.str());
    }
    return k;
}

std::vector<double> candidate_upsampling(nufft_kernel kind, double upsampling)
{
    if (upsampling != 0)
        return { upsampling };
    // Lower upsampling shrinks the grid by sigma^dim and widens the kernel: which wins
    // depends on the points per cell, so choose_geometry weighs them all.
    if (kind == nufft_kernel::es)
        return { 2.0, 1.75, 1.5, 1.25 };
    // The paper leaves R > 2 free; a larger R narrows the Gaussian and tames its
    // correction factors, at the price of a larger grid.
    return { 2.2, 2.5, 3.0, 4.0 };
}

void check_reachable(
    nufft_kernel kind, int dim, double eps, double upsampling, precision prec)
{
    const auto sigmas = candidate_upsampling(kind, upsampling);
    std::string why;
    for (double sigma : sigmas) {
        try {
            make_kernel(kind, dim, eps, sigma, prec);
            return;
        } catch (const std::invalid_argument& e) {
            if (sigmas.size() == 1)
                throw;
            std::ostringstream os;
            os << (why.empty() ? "" : "; ") << "upsampling " << sigma << ": " << e.what();
            why += os.str();
        }
    }
    std::ostringstream os;
    os << "eps: " << eps << " is reached by no candidate of the " << to_string(kind)
       << " kernel in " << to_string(prec) << " precision (" << why << ")";
    throw std::invalid_argument(os.str());
}

precision
grid_precision(nufft_kernel kind, int dim, double eps, double upsampling, precision prec)
{
    try {
        check_reachable(kind, dim, eps, upsampling, prec);
        return prec;
    } catch (const std::invalid_argument& e) {
        if (prec == precision::double_)
            throw;
        // Every single-precision grid's rounding floor is above eps (3-D at 1e-6: the
        // correction factors of three axes amplify float rounding to about 5e-6): the
        // grid in double, with c and F converted at the ends, reaches it for twice the
        // memory and about the time of a double plan.
        try {
            check_reachable(kind, dim, eps, upsampling, precision::double_);
            return precision::double_;
        } catch (const std::invalid_argument& e2) {
            throw std::invalid_argument(
                std::string(e.what()) +
                "; nor with the grid in double precision: " + e2.what());
        }
    }
}

double execute_cost(const geometry& g, std::int64_t n_sources, std::int64_t n_targets)
{
    // Spreading and interpolation touch taps^dim cells per point; the FFT costs about M
    // log2 M. A tap and an FFT element-pass cost about the same: with that weight the
    // choice among 2, 1.75 and 1.5 (at equal taps) was within 3% of the fastest on each
    // of the bench's nine cases, where half the weight on the FFT kept 2-D grids too
    // large.
    const double cells = double(g.total_cells());
    const double taps = std::pow(double(g.kernel.taps), g.dim);
    return double(n_sources + n_targets) * taps + cells * std::log2(std::max(2.0, cells));
}

double direct_cost(std::int64_t n_sources, std::int64_t n_targets, double term_cost)
{
    return term_cost * double(n_sources) * double(n_targets);
}

namespace {

std::string format_cost(double c)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", c);
    return buf;
}

geometry choose_grid(const plan_request& req, const extent* x, const extent* s);

} // namespace

geometry choose_geometry(const plan_request& req, const extent* x, const extent* s)
{
    const double budget = double(req.budget_bytes);
    const double direct_bytes = req.direct_bytes_per_source * double(req.n_sources) +
                                req.direct_bytes_per_target * double(req.n_targets);
    const double dcost = direct_cost(req.n_sources, req.n_targets, req.direct_term_cost);
    auto direct = [&](const std::string& why) {
        if (direct_bytes > budget) {
            std::ostringstream os;
            os << "the direct sum's point arrays (" << format_bytes(direct_bytes)
               << " for " << req.n_sources << " sources and " << req.n_targets
               << " targets) exceed the memory budget of " << format_bytes(budget)
               << " (memory_budget sets the limit)";
            throw std::invalid_argument(os.str());
        }
        geometry g;
        g.dim = req.dim;
        g.direct = true;
        g.sigma = 0;
        g.kernel.taps = 0;
        g.reason = why;
        return g;
    };
    if (req.method == nufft_method::direct)
        return direct("asked for (method direct)");
    if (req.method == nufft_method::grid) {
        geometry g = choose_grid(req, x, s);
        g.reason = "asked for (method grid)";
        return g;
    }
    geometry g;
    try {
        g = choose_grid(req, x, s);
    } catch (const std::invalid_argument& e) {
        // No grid fits (the budget, or 2^30 cells on an axis): the direct sum needs
        // only the points.
        if (direct_bytes > budget) {
            std::ostringstream os;
            os << e.what() << "; the direct sum would need " << format_bytes(direct_bytes)
               << ", also over the budget";
            throw std::invalid_argument(os.str());
        }
        return direct(std::string("the grid does not fit: ") + e.what());
    }
    const double gcost = execute_cost(g, req.n_sources, req.n_targets);
    if (dcost < gcost && direct_bytes <= budget)
        return direct("cheaper than the grid: cost " + format_cost(dcost) + " against " +
                      format_cost(gcost) + " (docs/nufft3.md)");
    g.reason = "cheaper than the direct sum: cost " + format_cost(gcost) + " against " +
               format_cost(dcost);
    return g;
}

namespace {

geometry choose_grid(const plan_request& req, const extent* x, const extent* s)
{
    const std::size_t cell_bytes = req.prec == precision::single ? 8 : 16;
    const double point_bytes =
        req.bytes_per_source * req.n_sources + req.bytes_per_target * req.n_targets;

    auto build = [&](double sigma) {
        geometry g;
        g.dim = req.dim;
        g.sigma = sigma;
        g.kernel = make_kernel(req.kernel, req.dim, req.eps, sigma, req.prec);
        for (int a = 0; a < req.dim; ++a) {
            double X = x[a].half(), S = s[a].half();
            safe_halves(X, S);
            axis_geometry ax =
                req.kernel == nufft_kernel::es
                    ? es_axis(X, S, sigma, g.kernel.taps)
                    : gaussian_axis(X, S, sigma, g.kernel.half_width - 0.5);
            ax.x_centre = x[a].centre();
            ax.s_centre = s[a].centre();
            // X and S bound the points' distances from the centres (safe_halves only
            // widens them).
            if (ax.cells <= max_axis_cells)
                set_supports(ax, X, S, g.kernel.half_width, g.kernel.taps);
            g.axis[a] = ax;
            // Cell indices are 32-bit in both backends (and 2^30 cells of one axis are
            // already 8 GiB of complex64).
            if (ax.cells > max_axis_cells) {
                std::ostringstream os;
                os << "fine grid: axis " << a << " would need " << ax.cells
                   << " cells (at most 2^30): the space-bandwidth product of that axis, "
                   << x[a].half() << " * " << s[a].half()
                   << " (source half-width times target half-width), is too large";
                throw std::invalid_argument(os.str());
            }
        }
        return g;
    };
    auto grid_bytes = [&](const geometry& g) {
        double cells = 1;
        for (int a = 0; a < g.dim; ++a)
            cells *= double(g.axis[a].cells);
        return cells * cell_bytes;
    };

    const std::vector<double> sigmas = candidate_upsampling(req.kernel, req.upsampling);

    const double budget = double(req.budget_bytes);
    bool have = false;
    geometry best, smallest;
    double best_cost = 0, smallest_bytes = 0;
    std::exception_ptr last_error;
    for (double sigma : sigmas) {
        geometry g;
        try {
            g = build(sigma);
        } catch (const std::invalid_argument&) {
            if (sigmas.size() == 1)
                throw;
            last_error = std::current_exception();
            continue; // eps too small for this upsampling: another one may do
        }
        // Chosen freely, a lower upsampling must leave most of eps to the kernel: its
        // larger correction factors bring the rounding floor close to eps (1-D single
        // precision at 1.75 landed at 0.99 eps with 1e7 sources). Asked for, it only has
        // to reach eps (make_kernel).
        if (req.kernel == nufft_kernel::es && sigmas.size() > 1 && sigma != 2.0 &&
            rounding_floor(g.kernel, sigma, g.dim, req.prec) > req.eps / 3)
            continue;
        const double bytes = grid_bytes(g);
        if (smallest_bytes == 0 || bytes < smallest_bytes) {
            smallest = g;
            smallest_bytes = bytes;
        }
        if (bytes + point_bytes > budget)
            continue;
        const double cost = execute_cost(g, req.n_sources, req.n_targets);
        if (!have || cost < best_cost) {
            best = g;
            best_cost = cost;
            have = true;
        }
    }
    if (have)
        return best;
    if (smallest_bytes == 0 && last_error)
        std::rethrow_exception(last_error); // no candidate could be built at all

    // Nothing fits: say which grid, why, and what would.
    const geometry& g = smallest;
    std::ostringstream os;
    os << "fine grid of ";
    double sbp = 1;
    for (int a = 0; a < g.dim; ++a) {
        os << (a ? " x " : "") << g.axis[a].cells;
        double X = x[a].half(), S = s[a].half();
        safe_halves(X, S);
        sbp *= X * S;
    }
    const double free_cells = std::max(0.0, (budget - point_bytes) / cell_bytes);
    const double sig2 = g.sigma * g.sigma;
    // Per axis M ~ 2 sigma^2 X S / pi (+ kernel margin): the product that would fit.
    const double fit_sbp =
        std::pow(std::pow(free_cells, 1.0 / g.dim) * pi / (2 * sig2), double(g.dim));
    os << " cells (" << format_bytes(smallest_bytes) << ") plus point arrays ("
       << format_bytes(point_bytes) << ") exceeds the memory budget of "
       << format_bytes(budget) << ": the space-bandwidth product ";
    os << (g.dim == 1   ? "X*S = "
           : g.dim == 2 ? "X*S*Y*T = "
                        : "X*S*Y*T*Z*U = ")
       << sbp
       << " (half-widths of the sources times those of the targets) is too large; about "
       << std::int64_t(free_cells) << " cells fit, i.e. a product up to about " << fit_sbp
       << " at upsampling " << g.sigma << " (memory_budget sets the limit)";
    throw std::invalid_argument(os.str());
}

} // namespace

} // namespace nufft
} // namespace gpufft
} // namespace gr
