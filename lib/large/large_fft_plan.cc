/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "core/fftw_lock.h"
#include "core/memory_error.h"
#include "cuda/peer_access.h"
#include "large/device_budget.h"
#include "large/large_fft_host.h"
#include "large/large_fft_peer.h"
#include "large/large_fft_plan_impl.h"
#include <gnuradio/gpufft/device.h>
#include <gnuradio/gpufft/large_fft_plan.h>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace gr {
namespace gpufft {

using i64 = std::int64_t;

void large_fft_plan::impl::run(const void* in, void* out)
{
    const auto& s = in == out ? in_place : out_of_place;
    engine->run(s, in, out);
    if (!peer && !s.host_permute.empty())
        detail::permute_digits(out, s.host_permute, elem_bytes, s.permute_unit, threads);
}

namespace {

std::string shape_string(const std::vector<i64>& shape)
{
    std::ostringstream s;
    s << "[";
    for (std::size_t i = 0; i < shape.size(); ++i)
        s << (i ? "," : "") << shape[i];
    s << "]";
    return s.str();
}

// CPU default: enough for the in-card schedule up to a quarter of the host's memory.
std::size_t default_cpu_budget(i64 n, std::size_t elem_bytes)
{
    const std::size_t floor = std::size_t(256) << 20;
    const std::size_t quarter = detail::host_physical_memory() / 4;
    const std::size_t want = std::size_t(n) * elem_bytes * 2;
    return std::max(floor, std::min(want, quarter));
}

#ifdef GPUFFT_HAVE_CUDA
// Several devices, 1-D, out of card on one: the peer exchange when it fits and every
// pair of devices has peer access; otherwise the host rounds, with the reason kept for
// describe().
void choose_peer_exchange(large_fft_plan::impl& d, const detail::large_fft_config& config)
{
    if (d.devices.size() < 2 || d.shape.size() != 1 || d.out_of_place.rounds.size() < 2)
        return;
    if (!config.peer_exchange) {
        d.peer_note = "the peer exchange is switched off";
        return;
    }
    auto layout = detail::plan_peer_exchange(
        d.n, int(d.devices.size()), d.elem_bytes, d.budget, d.peer_note);
    if (!layout)
        return;
    const std::string why = cuda::enable_peer_access(d.devices);
    if (!why.empty()) {
        d.peer_note = why;
        return;
    }
    d.peer = layout;
}
#endif

} // namespace

large_fft_plan detail::large_fft_plan_access::make(std::vector<std::int64_t> shape,
                                                   gpufft::direction dir,
                                                   const large_fft_options& options,
                                                   const large_fft_config& config)
{
    auto p = std::make_unique<large_fft_plan::impl>();
    auto& d = *p;
    if (shape.empty() || shape.size() > 3)
        throw std::invalid_argument("shape: " + shape_string(shape) + " has " +
                                    std::to_string(shape.size()) +
                                    " dimensions; must have 1, 2 or 3");
    d.elem_bytes = options.precision == precision::single ? 8 : 16;
    long double total = 1;
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (shape[i] <= 0)
            throw std::invalid_argument("shape[" + std::to_string(i) +
                                        "]: " + std::to_string(shape[i]) +
                                        " is invalid; every size must be >= 1");
        total *= shape[i];
    }
    if (total > (long double)(std::numeric_limits<i64>::max() / 16))
        throw std::invalid_argument("shape: " + shape_string(shape) +
                                    " has more elements than a 64-bit index can address");
    d.shape = shape;
    d.n = 1;
    for (i64 s : shape)
        d.n *= s;
    const std::size_t bytes = std::size_t(d.n) * d.elem_bytes;
    const std::size_t host_mem = detail::host_physical_memory();
    if (host_mem && bytes > host_mem)
        throw std::invalid_argument("shape: " + shape_string(shape) + " needs " +
                                    std::to_string(bytes) +
                                    " bytes per array; this host has " +
                                    std::to_string(host_mem) + " bytes of memory");
    if (dir != direction::forward && dir != direction::backward)
        throw std::invalid_argument("direction: must be forward (-1) or backward (+1)");
    if (options.threads < 0)
        throw std::invalid_argument("threads: " + std::to_string(options.threads) +
                                    " is invalid; must be >= 0 (0: all cores)");
    d.dir = dir;
    d.prec = options.precision;

    detail::check_device_list(options.devices, config.repeat_devices);
    if (options.backend == backend::cpu)
        detail::check_no_devices_on_cpu(options.devices);
    // an id out of range names `devices`, before the backend's check names device_id
    if (!options.devices.empty() && options.backend != backend::cpu &&
        cuda_device_count() > 0)
        detail::resolve_devices(options.devices, options.device_id);
    const int first_device =
        options.devices.empty() ? options.device_id : options.devices[0];
    d.used = resolve_backend(options.backend, first_device, options.log);
    d.budget = options.memory_budget;
    if (d.used == backend::cuda) {
        d.devices = detail::resolve_devices(options.devices, options.device_id);
        d.device_id = d.devices[0];
        d.budget =
            detail::resolve_devices_budget(d.budget, d.devices, !options.devices.empty());
    } else if (d.budget == 0) {
        d.budget = default_cpu_budget(d.n, d.elem_bytes);
    }

    d.out_of_place =
        detail::plan_large_fft(shape, d.elem_bytes, d.budget, false, config.ring_slots);
    d.in_place =
        detail::plan_large_fft(shape, d.elem_bytes, d.budget, true, config.ring_slots);

    detail::large_exec_config cfg;
    cfg.dir = dir;
    cfg.prec = d.prec;
    cfg.threads = detail::cpu_threads(options.threads, (long long)d.n);
    d.threads = cfg.threads;
    cfg.device_id = d.device_id;
    cfg.devices = d.devices;
    cfg.trace = options.trace;
    cfg.log = options.log;
    cfg.tuning = config;
    const std::vector<const detail::large_schedule*> both{ &d.out_of_place, &d.in_place };
#ifdef GPUFFT_HAVE_CUDA
    choose_peer_exchange(d, config);
#endif
    detail::with_memory_context("large_fft_plan", d.sizes(), [&] {
        if (d.used == backend::cuda) {
#ifdef GPUFFT_HAVE_CUDA
            d.engine = d.peer ? detail::make_large_fft_peer(*d.peer, cfg)
                              : detail::make_large_fft_cuda(both, cfg);
#endif
        } else {
            d.engine = detail::make_large_fft_cpu(both, cfg);
        }
    });
    return large_fft_plan(std::move(p));
}

large_fft_plan::large_fft_plan(std::vector<std::int64_t> shape,
                               gpufft::direction dir,
                               const large_fft_options& options)
    : large_fft_plan(detail::make_large_fft_plan(
          std::move(shape), dir, options, detail::large_fft_config()))
{
}

large_fft_plan::large_fft_plan(std::unique_ptr<impl> d) : d_impl(std::move(d)) {}

large_fft_plan::~large_fft_plan() = default;
large_fft_plan::large_fft_plan(large_fft_plan&&) noexcept = default;
large_fft_plan& large_fft_plan::operator=(large_fft_plan&&) noexcept = default;

void large_fft_plan::execute(const std::complex<float>* in, std::complex<float>* out)
{
    if (d_impl->prec != precision::single)
        throw std::invalid_argument(
            "execute: complex64 arrays given to a plan made for precision 'double'");
    if (!in || !out)
        throw std::invalid_argument("execute: null array");
    detail::with_memory_context(
        "large_fft_plan.execute", d_impl->sizes(), [&] { d_impl->run(in, out); });
}

void large_fft_plan::execute(const std::complex<double>* in, std::complex<double>* out)
{
    if (d_impl->prec != precision::double_)
        throw std::invalid_argument(
            "execute: complex128 arrays given to a plan made for precision 'single'");
    if (!in || !out)
        throw std::invalid_argument("execute: null array");
    detail::with_memory_context(
        "large_fft_plan.execute", d_impl->sizes(), [&] { d_impl->run(in, out); });
}

std::vector<std::int64_t> large_fft_plan::shape() const { return d_impl->shape; }
std::int64_t large_fft_plan::size() const { return d_impl->n; }
direction large_fft_plan::direction() const { return d_impl->dir; }
precision large_fft_plan::precision() const { return d_impl->prec; }
backend large_fft_plan::backend() const { return d_impl->used; }
int large_fft_plan::device_id() const { return d_impl->device_id; }
std::vector<int> large_fft_plan::devices() const { return d_impl->devices; }
std::size_t large_fft_plan::memory_budget() const { return d_impl->budget; }
int large_fft_plan::passes() const
{
    return d_impl->peer ? 1 : int(d_impl->out_of_place.rounds.size());
}

std::string large_fft_plan::describe() const
{
    std::ostringstream s;
    s << "large_fft_plan on " << to_string(d_impl->used);
    const auto& dev = d_impl->devices;
    if (dev.size() == 1)
        s << " (device " << dev[0] << ")";
    else if (dev.size() > 1) {
        s << " (devices ";
        for (std::size_t i = 0; i < dev.size(); ++i)
            s << (i ? "," : "") << dev[i];
        s << (d_impl->peer ? ", budget per device)"
                           : ", passes dealt out in turn, budget per device)");
    }
    if (d_impl->peer) {
        s << "\nboth ways: " << d_impl->peer->describe();
        return s.str();
    }
    if (!d_impl->peer_note.empty())
        s << "\nno peer exchange: " << d_impl->peer_note;
    s << "\nout of place: " << d_impl->out_of_place.describe()
      << "in place: " << d_impl->in_place.describe();
    return s.str();
}

} // namespace gpufft
} // namespace gr
