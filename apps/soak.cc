/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// gpufft-soak: runs each engine for a while on fresh inputs and watches host RSS and the
// device's free memory. A leak of a buffer, a cuFFT plan or a pinned block per call
// shows as steady growth; the run fails when either grows past its tolerance after the
// warm-up. Links the engine objects only, so it runs on the GPU machine without GNU
// Radio.
//
//   gpufft-soak [--seconds S] [--backend cuda|cpu|auto] [--engines a,b,...]
//               [--host-growth-mib M] [--device-growth-mib M]
//   engines: dense, sparse-exact, sparse-robust, nufft, large, integrator (default all)

#include <gnuradio/gpufft/dense_fft_plan.h>
#include <gnuradio/gpufft/device.h>
#include <gnuradio/gpufft/large_fft_plan.h>
#include <gnuradio/gpufft/nufft3_plan.h>
#include <gnuradio/gpufft/sparse_fft_plan.h>
#include <gnuradio/gpufft/spectrum_integrator.h>
#include <unistd.h>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace gr::gpufft;
using clock_type = std::chrono::steady_clock;
using cf = std::complex<float>;

namespace {

struct options {
    double seconds = 30;
    backend use = backend::cuda;
    std::vector<std::string> engines{ "dense", "sparse-exact", "sparse-robust",
                                      "nufft", "large",        "integrator" };
    double host_growth_mib = 64;
    double device_growth_mib = 16;
};

double rss_mib()
{
    long pages = 0, resident = 0;
    if (FILE* f = std::fopen("/proc/self/statm", "r")) {
        if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2)
            resident = 0;
        std::fclose(f);
    }
    return double(resident) * double(sysconf(_SC_PAGESIZE)) / double(1 << 20);
}

// Device memory in use by anyone (total - free), MiB; 0 on the CPU backend.
double device_used_mib(backend b)
{
    if (b != backend::cuda)
        return 0;
    const device_info d = get_device_info(0);
    return double(d.total_memory - d.free_memory) / double(1 << 20);
}

// Fresh samples each call: a cheap generator, seeded once per run (the seed printed).
struct sample_source {
    std::uint64_t state;
    explicit sample_source(std::uint64_t seed) : state(seed | 1) {}
    float next()
    {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        return float(std::int64_t(state >> 11) - (std::int64_t(1) << 52)) /
               float(std::int64_t(1) << 52);
    }
    template <typename C>
    void fill(std::vector<C>& v)
    {
        for (auto& x : v)
            x = C(next(), next());
    }
};

// x += a e^{2 pi i f t / n}, or with `modulate`, x *= a e^{2 pi i f t / n} (a shift of
// every tone by f bins); the phasor is renewed every 4096 samples to keep it exact.
void add_tone(std::vector<cf>& x, double f, std::complex<double> a, bool modulate = false)
{
    const double n = double(x.size());
    const std::complex<double> step = std::polar(1.0, 2 * M_PI * f / n);
    std::complex<double> w = 1.0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        if (i % 4096 == 0)
            w = std::polar(1.0, 2 * M_PI * std::fmod(f * double(i), n) / n);
        const std::complex<double> v = a * w;
        if (modulate)
            x[i] *= cf(float(v.real()), float(v.imag()));
        else
            x[i] += cf(float(v.real()), float(v.imag()));
        w *= step;
    }
}

struct engine_run {
    std::string name;
    std::function<void(sample_source&)> step; // one call on fresh inputs
};

engine_run make_engine(const std::string& name, backend b)
{
    if (name == "dense") {
        auto p = std::make_shared<dense_fft_plan>(1 << 20, 4, direction::forward, [&] {
            dense_fft_options o;
            o.backend = b;
            return o;
        }());
        auto x = std::make_shared<std::vector<cf>>(std::size_t(1) << 22);
        auto y = std::make_shared<std::vector<cf>>(x->size());
        return { name, [=](sample_source& s) {
                    s.fill(*x);
                    p->execute(x->data(), y->data());
                } };
    }
    if (name == "sparse-exact" || name == "sparse-robust") {
        sparse_fft_options o;
        o.backend = b;
        o.mode =
            name == "sparse-exact" ? sparse_fft_mode::exact : sparse_fft_mode::robust;
        // A higher floor than the default keeps robust mode on its sparse path at this
        // n and k (the default falls back to the dense FFT + threshold).
        o.min_snr_db = 30;
        const std::int64_t n = std::int64_t(1) << 22, k = 64;
        auto p = std::make_shared<sparse_fft_plan>(n, k, o);
        // k tones made once (fractional in robust mode), shifted to fresh frequencies and
        // rescaled on every call.
        auto base = std::make_shared<std::vector<cf>>(std::size_t(n), cf(0.f, 0.f));
        auto x = std::make_shared<std::vector<cf>>(std::size_t(n));
        auto bins = std::make_shared<std::vector<std::int64_t>>();
        auto values = std::make_shared<std::vector<cf>>();
        std::mt19937_64 rng(12345);
        for (std::int64_t t = 0; t < k; ++t) {
            const double f = double(rng() % std::uint64_t(n)) +
                             (o.mode == sparse_fft_mode::robust ? 0.37 : 0.0);
            add_tone(*base, f, std::complex<double>(1.0 + double(t % 5), 0.5));
        }
        return { name, [=](sample_source& s) {
                    const double shift = double(std::uint64_t(s.next() * 1e9 + 2e9) % n);
                    *x = *base;
                    add_tone(*x, shift, std::complex<double>(s.next(), s.next()), true);
                    p->execute(x->data(), *bins, *values);
                } };
    }
    if (name == "nufft") {
        nufft3_options o;
        o.backend = b;
        auto p = std::make_shared<nufft3_plan>(1, 1e-6, o);
        const std::size_t m = 100000;
        auto x = std::make_shared<std::vector<double>>(m);
        auto f = std::make_shared<std::vector<double>>(m);
        auto c = std::make_shared<std::vector<std::complex<double>>>(m);
        auto F = std::make_shared<std::vector<std::complex<double>>>(m);
        return { name, [=](sample_source& s) {
                    for (std::size_t j = 0; j < m; ++j) {
                        (*x)[j] = 300.0 * s.next();
                        (*f)[j] = 300.0 * s.next();
                    }
                    s.fill(*c);
                    p->set_points(std::int64_t(m), x->data(), std::int64_t(m), f->data());
                    p->execute(c->data(), F->data());
                } };
    }
    if (name == "large") {
        large_fft_options o;
        o.backend = b;
        o.memory_budget = std::size_t(64) << 20; // several passes, every path of a round
        const std::int64_t n = std::int64_t(1) << 24;
        auto p = std::make_shared<large_fft_plan>(
            std::vector<std::int64_t>{ n }, direction::forward, o);
        auto x = std::make_shared<std::vector<cf>>(std::size_t(n));
        return { name, [=](sample_source& s) {
                    s.fill(*x);
                    p->execute(x->data(), x->data());
                } };
    }
    if (name == "integrator") {
        spectrum_integrator_options o;
        o.backend = b;
        const std::int64_t n = std::int64_t(1) << 22;
        auto p = std::make_shared<spectrum_integrator>(n, 0, n, 4096, o);
        auto x = std::make_shared<std::vector<cf>>(std::size_t(n));
        auto out = std::make_shared<std::vector<float>>(4096);
        return { name, [=](sample_source& s) {
                    s.fill(*x);
                    p->accumulate(x->data());
                    if (p->frames() == 16) {
                        p->read(out->data());
                        p->reset();
                    }
                } };
    }
    throw std::invalid_argument("--engines: unknown engine '" + name +
                                "'; use dense, sparse-exact, sparse-robust, nufft, "
                                "large, integrator");
}

// Runs one engine for o.seconds; false when memory grew past the tolerances.
bool soak(const std::string& name, const options& o, std::uint64_t seed)
{
    sample_source src(seed);
    engine_run e = make_engine(name, o.use);
    // Warm-up: caches, pools and lazily made plans settle in the first calls.
    const auto t0 = clock_type::now();
    long calls = 0;
    while (calls < 5 ||
           clock_type::now() - t0 < std::chrono::duration<double>(0.1 * o.seconds)) {
        e.step(src);
        ++calls;
    }
    const double rss0 = rss_mib(), dev0 = device_used_mib(o.use);
    double rss_max = rss0, dev_max = dev0;
    const auto t1 = clock_type::now();
    long soaked = 0;
    while (clock_type::now() - t1 < std::chrono::duration<double>(0.9 * o.seconds)) {
        e.step(src);
        ++soaked;
        if (soaked % 8 == 0) {
            rss_max = std::max(rss_max, rss_mib());
            dev_max = std::max(dev_max, device_used_mib(o.use));
        }
    }
    const double secs = std::chrono::duration<double>(clock_type::now() - t1).count();
    const double rss1 = rss_mib(), dev1 = device_used_mib(o.use);
    const bool ok =
        rss1 - rss0 <= o.host_growth_mib && dev1 - dev0 <= o.device_growth_mib;
    std::printf("%-14s %7ld calls %8.1f /s  host RSS %8.1f -> %8.1f MiB (max %8.1f)  "
                "device used %8.1f -> %8.1f MiB (max %8.1f)  %s\n",
                name.c_str(),
                soaked,
                double(soaked) / secs,
                rss0,
                rss1,
                rss_max,
                dev0,
                dev1,
                dev_max,
                ok ? "flat" : "GROWTH");
    std::fflush(stdout);
    return ok;
}

std::vector<std::string> split(const std::string& s)
{
    std::vector<std::string> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ','))
        if (!item.empty())
            out.push_back(item);
    return out;
}

} // namespace

int main(int argc, char** argv)
{
    options o;
    try {
        for (int i = 1; i < argc; ++i) {
            const std::string a = argv[i];
            auto value = [&]() -> std::string {
                if (i + 1 >= argc)
                    throw std::invalid_argument(a + ": needs a value");
                return argv[++i];
            };
            if (a == "--seconds")
                o.seconds = std::stod(value());
            else if (a == "--backend")
                o.use = parse_backend(value());
            else if (a == "--engines")
                o.engines = split(value());
            else if (a == "--host-growth-mib")
                o.host_growth_mib = std::stod(value());
            else if (a == "--device-growth-mib")
                o.device_growth_mib = std::stod(value());
            else if (a == "-h" || a == "--help") {
                std::printf(
                    "gpufft-soak [--seconds S] [--backend cuda|cpu|auto] "
                    "[--engines dense,sparse-exact,sparse-robust,nufft,large,"
                    "integrator] [--host-growth-mib M] [--device-growth-mib M]\n");
                return 0;
            } else
                throw std::invalid_argument("unknown argument '" + a + "'");
        }
        if (!(o.seconds > 0))
            throw std::invalid_argument("--seconds: must be > 0");
        o.use = resolve_backend(o.use, 0);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gpufft-soak: %s\n", e.what());
        return 2;
    }
    const std::uint64_t seed = std::random_device{}() * 2654435761ull + 1;
    std::printf("gpufft-soak: backend %s, %.0f s per engine, seed %llu; tolerances host "
                "%.0f MiB, device %.0f MiB\n",
                to_string(o.use).c_str(),
                o.seconds,
                static_cast<unsigned long long>(seed),
                o.host_growth_mib,
                o.device_growth_mib);
    int failures = 0;
    for (const auto& name : o.engines) {
        try {
            if (!soak(name, o, seed))
                ++failures;
        } catch (const std::exception& e) {
            std::printf("%-14s FAILED: %s\n", name.c_str(), e.what());
            ++failures;
        }
    }
    std::printf("gpufft-soak: %s\n", failures ? "FAILED" : "all flat");
    return failures ? 1 : 0;
}
