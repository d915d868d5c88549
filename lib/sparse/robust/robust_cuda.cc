/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// CUDA backend of robust mode: the CPU backend's stages (robust_cpu.cc) as device
// kernels (robust_kernels.cu), all buffers made here, nothing allocated per call. The
// steady-state call is one CUDA graph launch and one copy of the tones back. Host input
// gathers only the samples the hashes read. Also the dense FFT + threshold path.

#include "cuda/cuda_resources.h"
#include "cuda/host_transfer.h"
#include "cuda/stream_graph.h"
#include "sparse/common/host_gather.h"
#include "sparse/common/select_cuda.h"
#include "sparse/common/sparse_common.h"
#include "sparse/common/sparse_cuda_setup.h"
#include "sparse/robust/probe_kernels.h"
#include "sparse/robust/robust_backend.h"
#include "sparse/robust/robust_kernels.h"
#include <gnuradio/gpufft/dense_fft_plan.h>
#include <algorithm>
#include <stdexcept>
#include <thread>

namespace gr {
namespace gpufft {
namespace detail {

namespace {

//! The tones of the block a call copied back (header, then up to cap tones) into out;
//! returns the header's noise. Throws when a sample read was not finite.
double read_tones(const unsigned char* block, int cap, robust_frame& out)
{
    const auto* hdr = reinterpret_cast<const robust_device_header*>(block);
    if (hdr->bad)
        throw_non_finite();
    const auto* t =
        reinterpret_cast<const robust_device_tone*>(block + sizeof(robust_device_header));
    const int count = std::min(hdr->tones, cap);
    out.ordered = hdr->ordered != 0;
    out.tones.clear();
    out.near.clear();
    out.joint.clear();
    bool joint = false;
    for (int i = 0; i < count; ++i) {
        if (t[i].flags & robust_tone_dropped) // a joint fit's (the order kernel left
            continue;                         // them out, unless too many to order)
        sparse_tone tone;
        tone.frequency = t[i].frequency;
        tone.amplitude = std::complex<double>(t[i].re, t[i].im);
        if (out.ordered) {
            tone.snr_db = t[i].snr_db;
            out.near.push_back(t[i].near ? 1 : 0);
        }
        out.tones.push_back(tone);
        out.joint.push_back((t[i].flags & robust_tone_joint) ? 1 : 0);
        joint = joint || (t[i].flags & robust_tone_joint);
    }
    if (!joint)
        out.joint.clear();
    return hdr->noise;
}

class robust_cuda final : public sparse_robust_backend
{
public:
    robust_cuda(const sparse_params& p, int device_id, sparse_fft_transfer transfer)
        : d_p(p),
          d_device(device_id),
          d_transfer(transfer == sparse_fft_transfer::full_copy
                         ? transfer
                         : sparse_fft_transfer::gather),
          d_fft(p.rc.B, p.hashes(), direction::forward, cuda_fft_options(device_id)),
          d_probe(p.c.n, p.k),
          d_probe_fft(d_probe.length(),
                      d_probe.segments(),
                      direction::forward,
                      cuda_fft_options(device_id))
    {
        const auto& rc = p.rc;
        const int H = p.hashes();
        const std::size_t HB = std::size_t(H) * rc.B;
        const std::size_t LB = std::size_t(rc.loops) * rc.B;
        d_hash_plan.upload(p, d_stream.get());
        d_z.allocate(HB, "the bucket samples");
        d_Z.allocate(HB, "the buckets");
        d_res.allocate(2 * HB);
        d_scalars.allocate(robust_scalar_slots);
        d_loop_flags.allocate(std::size_t(rc.loops));
        // A device frame's probe runs on the GPU: k = 1000 asks for 8 segments of 65536
        // samples, whose FFTs, window and power took about 7 ms on one host core, and
        // the median of their 65536 bins 0.5 ms more (std::nth_element); the radix
        // select returns the same element.
        const std::size_t L = std::size_t(d_probe.length());
        d_probe_x.allocate(std::size_t(d_probe.samples_read()), "the floor probe");
        d_probe_X.allocate(std::size_t(d_probe.samples_read()), "the floor probe");
        d_probe_window.allocate(L, "the floor probe");
        d_probe_power.allocate(L + 1, "the floor probe"); // + 1: the median
        d_probe_bad.allocate(1, "the floor probe");
        d_probe_select.allocate(select_scratch_words, "the floor probe");
        h_probe_median.allocate(1);
        h_probe_bad.allocate(1);
        GPUFFT_CUDA_CHECK(cudaMemcpyAsync(d_probe_window.get(),
                                          d_probe.window().data(),
                                          L * sizeof(float),
                                          cudaMemcpyHostToDevice,
                                          d_stream.get()));
        if (d_probe.segments() > robust_probe_max_segments)
            throw std::logic_error("robust_cuda: the floor probe has more segments than "
                                   "robust_probe_starts holds");
        for (std::int64_t seg = 0; seg < d_probe.segments(); ++seg)
            d_probe_starts.at[seg] = d_probe.start(seg);
        d_counts.allocate(robust_count_slots(p.outer_rounds));
        const std::int64_t max_found = p.max_found;
        // Keys: located frequencies, and two lobe neighbours of each one found.
        const unsigned long long table = pow2_at_least(4 * LB + 4 * max_found);
        d_keys.allocate(table);
        d_tags.allocate(table);
        d_slot_found.allocate(table);
        // A round claims at most its candidates' slots; more than that in a call is
        // possible only in a frame far from sparse, and then the next reset clears all.
        const std::size_t used_cap = LB + 2 * std::size_t(max_found);
        d_used.allocate(used_cap);
        d_used_count.allocate(3);
        const int fresh[3] = { 0, 0, 1 }; // the first reset clears the whole table
        GPUFFT_CUDA_CHECK(cudaMemcpyAsync(d_used_count.get(),
                                          fresh,
                                          sizeof(fresh),
                                          cudaMemcpyHostToDevice,
                                          d_stream.get()));
        // A round's candidates: located ones and the lobe neighbours of the last
        // round's; two lists (launch_robust_round()).
        const std::size_t max_cand = LB + 2 * std::size_t(max_found);
        d_cand.allocate(2 * max_cand);
        d_found_f.allocate(max_found);
        d_found_x.allocate(2 * max_found);
        d_next_x.allocate(2 * max_found);
        d_occ.allocate(LB);
        d_above.allocate(max_found);
        d_peaks.allocate(max_found);
        d_tone_cap = int(std::min<std::int64_t>(max_found, 4 * p.k + 256));
        const std::size_t out_bytes =
            sizeof(robust_device_header) + d_tone_cap * sizeof(robust_device_tone);
        d_out.allocate(out_bytes);
        h_out.allocate(out_bytes);
        d_xptr.allocate(1);
        h_xptr.allocate(1);

        auto& s = d_state;
        s.c = rc;
        s.sigma = d_hash_plan.sigma.get();
        s.sigma_inv = d_hash_plan.sigma_inv.get();
        s.tau = d_hash_plan.tau.get();
        s.res = d_res.get();
        s.scalars = d_scalars.get();
        s.loop_flags = d_loop_flags.get();
        s.counts = d_counts.get();
        s.keys = d_keys.get();
        s.tags = d_tags.get();
        s.slot_found = d_slot_found.get();
        s.table_mask = table - 1;
        s.used = d_used.get();
        s.used_count = d_used_count.get();
        s.used_cap = int(used_cap);
        s.cand_slot = d_cand.get();
        s.max_cand = int(max_cand);
        s.found_f = d_found_f.get();
        s.found_x = d_found_x.get();
        s.next_x = d_next_x.get();
        s.occ = d_occ.get();
        s.above = d_above.get();
        s.peaks = d_peaks.get();
        s.max_found = int(max_found);
        s.rounds = p.outer_rounds;
        s.eta = p.eta;
        s.locate_eta = p.locate_eta;
        s.leak_floor = p.leak_floor;
        s.header = reinterpret_cast<robust_device_header*>(d_out.get());
        s.tones = reinterpret_cast<robust_device_tone*>(d_out.get() +
                                                        sizeof(robust_device_header));
        s.tone_cap = d_tone_cap;

        d_stream.synchronize(); // the hash plan's copies
    }

    void run(const std::complex<float>* x, memory where, robust_frame& out) override
    {
        cuda::device_guard guard(d_device);
        if (where == memory::device) {
            d_stream.follow_default_stream();
            h_xptr[0] = x;
            d_graph_device.run(d_stream.get(), [&] { enqueue(false); });
        } else if (d_transfer == sparse_fft_transfer::gather) {
            ensure_gather();
            d_gather->run(x,
                          d_gather_index.data(),
                          d_gather_index.size(),
                          reinterpret_cast<std::complex<float>*>(h_staged.get()));
            d_graph_staged.run(d_stream.get(), [&] { enqueue(true); });
        } else {
            if (!d_full.get())
                d_full.allocate(d_p.c.n, "the whole frame");
            d_stager.to_device(
                d_full.get(), x, std::size_t(d_p.c.n) * sizeof(float2), d_stream.get());
            h_xptr[0] = d_full.get();
            d_graph_device.run(d_stream.get(), [&] { enqueue(false); });
        }
        d_stream.synchronize();
        const double noise = read_tones(h_out.get(), d_tone_cap, out);
        out.bin_noise = double(d_p.rc.n) * noise / d_p.taps_power;
        order_tones(out.bin_noise / d_p.window_power, out);
        // The self-check (robust_check.h): the probe's floor from the graph's probe
        // branch when the whole frame was on the device, else from the host's samples.
        double probe = 0;
        if (where == memory::device || d_transfer == sparse_fft_transfer::full_copy) {
            if (*h_probe_bad.get())
                throw_non_finite();
            probe = d_probe.floor_of_median(*h_probe_median.get());
        } else {
            probe = d_probe.floor(x);
        }
        const auto* hdr = reinterpret_cast<const robust_device_header*>(h_out.get());
        const double to_bin = double(d_p.rc.n) / (d_p.taps_power * d_p.window_power);
        out.check = robust_verdict(
            hdr->raw_noise * to_bin, probe, hdr->unexplained_loops, d_p.rc.loops);
    }

    std::string notes() const override
    {
        const auto* hdr = reinterpret_cast<const robust_device_header*>(h_out.get());
        return std::string(d_transfer == sparse_fft_transfer::gather
                               ? "host input: gather touched samples, CUDA graph"
                               : "host input: copy all n, CUDA graph") +
               ", last frame: " + std::to_string(hdr->bright) + " bright buckets, " +
               std::to_string(hdr->located) + " located, " + std::to_string(hdr->found) +
               " coefficients, " + std::to_string(hdr->tones) + " peaks";
    }

private:
    // The whole call after the samples are reachable, on d_stream (captured once).
    void enqueue(bool staged)
    {
        cudaStream_t s = d_stream.get();
        const auto& p = d_p;
        launch_robust_reset(d_state, s);
        if (staged) {
            GPUFFT_CUDA_CHECK(cudaMemcpyAsync(d_staged.get(),
                                              h_staged.get(),
                                              d_staged.bytes(),
                                              cudaMemcpyHostToDevice,
                                              s));
        } else {
            GPUFFT_CUDA_CHECK(cudaMemcpyAsync(
                d_xptr.get(), h_xptr.get(), sizeof(void*), cudaMemcpyHostToDevice, s));
        }
        launch_robust_hash(p.rc,
                           reinterpret_cast<const void* const*>(d_xptr.get()),
                           staged ? d_staged.get() : nullptr,
                           d_hash_plan.taps.get(),
                           d_hash_plan.walks.get(),
                           p.window,
                           p.half_window,
                           p.hashes(),
                           d_z.get(),
                           s);
        // The probe reads only the frame: a branch of the graph beside the small,
        // latency-bound kernels after the hash. Forked before the hash it took SMs
        // from the hash's scattered reads, which set the frame's time.
        if (!staged) {
            d_probe_start.record(s);
            GPUFFT_CUDA_CHECK(
                cudaStreamWaitEvent(d_probe_stream.get(), d_probe_start.get(), 0));
            enqueue_probe();
            d_probe_done.record(d_probe_stream.get());
        }
        d_fft.execute_async(d_z.get(), d_Z.get(), s);
        launch_robust_load(d_state, d_Z.get(), s);
        launch_robust_noise(d_state, s);
        for (int round = 0; round < p.outer_rounds; ++round) {
            launch_robust_round(d_state, round, s);
            if (p.noise_after_round(round))
                launch_robust_noise(d_state, s);
        }
        for (int pass = 0; pass < p.refine_passes; ++pass)
            launch_robust_refine(d_state, s);
        launch_robust_noise(d_state, s); // as the CPU: once, from the final residual
        launch_robust_check(d_state, d_Z.get(), s);
        launch_robust_tones(d_state, s);
        // snr_db over the noise of one bin: n P / (taps_power window_power).
        launch_robust_order(d_state.header,
                            d_state.tones,
                            d_tone_cap,
                            p.rc.n,
                            double(p.rc.n) / (p.taps_power * p.window_power),
                            s);
        GPUFFT_CUDA_CHECK(cudaMemcpyAsync(
            h_out.get(), d_out.get(), d_out.bytes(), cudaMemcpyDeviceToHost, s));
        if (!staged) // the probe branch joins
            GPUFFT_CUDA_CHECK(cudaStreamWaitEvent(s, d_probe_done.get(), 0));
    }

    // The floor probe of a frame on the device, on d_probe_stream (a graph branch): its
    // segments windowed, one batched FFT, the periodograms summed per bin; the host
    // takes their median, selected here, to robust_floor_probe::floor_of_median.
    void enqueue_probe()
    {
        const cudaStream_t s = d_probe_stream.get();
        const std::int64_t L = d_probe.length();
        const int S = int(d_probe.segments());
        GPUFFT_CUDA_CHECK(cudaMemsetAsync(d_probe_bad.get(), 0, sizeof(int), s));
        launch_probe_gather(reinterpret_cast<const void* const*>(d_xptr.get()),
                            d_probe_starts,
                            S,
                            L,
                            d_probe_window.get(),
                            d_probe_x.get(),
                            d_probe_bad.get(),
                            s);
        d_probe_fft.execute_async(d_probe_x.get(), d_probe_X.get(), s);
        launch_probe_power(d_probe_X.get(), S, L, d_probe_power.get(), s);
        float* median = d_probe_power.get() + L;
        launch_select_nonneg(
            d_probe_power.get(), L, L / 2, d_probe_select.get(), median, s);
        GPUFFT_CUDA_CHECK(cudaMemcpyAsync(
            h_probe_median.get(), median, sizeof(float), cudaMemcpyDeviceToHost, s));
        GPUFFT_CUDA_CHECK(cudaMemcpyAsync(h_probe_bad.get(),
                                          d_probe_bad.get(),
                                          sizeof(int),
                                          cudaMemcpyDeviceToHost,
                                          s));
    }

    void ensure_gather()
    {
        if (h_staged.get())
            return;
        d_gather_index = gather_indices(d_p);
        h_staged.allocate(d_gather_index.size());
        d_staged.allocate(d_gather_index.size());
        d_gather = std::make_unique<host_gather>(
            host_gather::threads_for(d_gather_index.size()));
    }

    sparse_params d_p;
    int d_device;
    sparse_fft_transfer d_transfer;
    dense_fft_plan d_fft;
    cuda::stream d_stream;
    cuda::host_stager d_stager;
    device_hash_plan d_hash_plan;
    cuda::device_buffer<float2> d_z, d_Z;
    cuda::device_buffer<double> d_res;
    cuda::device_buffer<double> d_scalars;
    cuda::device_buffer<int> d_loop_flags;
    cuda::device_buffer<int> d_counts;
    cuda::device_buffer<unsigned long long> d_keys;
    cuda::device_buffer<unsigned int> d_tags;
    cuda::device_buffer<int> d_slot_found;
    cuda::device_buffer<long long> d_used;
    cuda::device_buffer<int> d_used_count;
    cuda::device_buffer<long long> d_cand, d_found_f;
    cuda::device_buffer<double> d_found_x, d_next_x;
    cuda::device_buffer<int> d_occ;
    cuda::device_buffer<unsigned char> d_above;
    cuda::device_buffer<int> d_peaks;
    int d_tone_cap = 0;
    cuda::device_buffer<unsigned char> d_out;
    cuda::pinned_buffer<unsigned char> h_out;
    cuda::device_buffer<const void*> d_xptr;
    cuda::pinned_buffer<const void*> h_xptr;
    robust_device_state d_state;
    // Host input.
    std::vector<std::uint64_t> d_gather_index;
    std::unique_ptr<host_gather> d_gather;
    cuda::pinned_buffer<float2> h_staged;
    cuda::device_buffer<float2> d_staged;
    cuda::device_buffer<float2> d_full;
    cuda::stream_graph d_graph_device, d_graph_staged;
    // The self-check's floor probe, and a device frame's segments for it.
    robust_floor_probe d_probe;
    dense_fft_plan d_probe_fft; // its segments' FFTs, on the GPU for device frames
    robust_probe_starts d_probe_starts{};
    cuda::device_buffer<std::complex<float>> d_probe_x, d_probe_X;
    cuda::device_buffer<float> d_probe_window, d_probe_power;
    cuda::device_buffer<int> d_probe_bad;
    cuda::device_buffer<unsigned> d_probe_select; // the median's radix-select scratch
    cuda::stream d_probe_stream;
    cuda::event d_probe_start, d_probe_done;
    cuda::pinned_buffer<float> h_probe_median;
    cuda::pinned_buffer<int> h_probe_bad;
};

// Dense path: copy (host input), cuFFT, the windowed spectrum's noise from sampled bins,
// a tone per peak above the threshold, fitted on the device to its lobe, then to the
// unwindowed bins, and the tones that share a lobe fitted together.
class dense_threshold_cuda final : public sparse_robust_backend
{
public:
    dense_threshold_cuda(const sparse_params& p, int device_id)
        : d_p(p),
          d_device(device_id),
          d_fft(p.c.n, 1, direction::forward, cuda_fft_options(device_id))
    {
        const std::int64_t n = p.c.n;
        const std::int64_t stride = dense_noise_stride(n);
        const std::int64_t samples = (n + stride - 1) / stride;
        d_frame.allocate(n, "the frame");
        d_Xw.allocate(n, "the windowed spectrum");
        d_X.allocate(n, "the spectrum");
        d_power.allocate(samples);
        d_select.allocate(select_scratch_words);
        d_median.allocate(1);
        d_scalars.allocate(2);
        d_tone_cap = int(std::min<std::int64_t>(n, 4 * p.k + 256));
        const std::size_t out_bytes =
            sizeof(robust_device_header) + d_tone_cap * sizeof(robust_device_tone);
        d_out.allocate(out_bytes);
        h_out.allocate(out_bytes);
        d_xptr.allocate(1);
        h_xptr.allocate(1);
        const std::size_t table = robust_peak_table_size(d_tone_cap);
        d_seeds.allocate(d_tone_cap);
        d_seed_count.allocate(1);
        d_peak_keys.allocate(table);
        d_peak_slots.allocate(table);
        auto& s = d_state;
        s.seeds = d_seeds.get();
        s.seed_count = d_seed_count.get();
        s.peak_keys = d_peak_keys.get();
        s.peak_slots = d_peak_slots.get();
        s.peak_mask = table - 1;
        s.c = p.rc;
        s.plain = robust_plain_consts(p.rc);
        s.plain_scale = 1.0 / p.window_power;
        s.X = d_X.get();
        s.Xw = d_Xw.get();
        s.power = d_power.get();
        s.samples = samples;
        s.select_scratch = d_select.get();
        s.median = d_median.get();
        s.scalars = d_scalars.get();
        s.header = reinterpret_cast<robust_device_header*>(d_out.get());
        s.tones = reinterpret_cast<robust_device_tone*>(d_out.get() +
                                                        sizeof(robust_device_header));
        s.tone_cap = d_tone_cap;
        s.eta = p.eta;
    }

    void run(const std::complex<float>* x, memory where, robust_frame& out) override
    {
        cuda::device_guard guard(d_device);
        const void* in = x;
        if (where == memory::device)
            d_stream.follow_default_stream();
        if (where == memory::host) {
            if (!d_in.get())
                d_in.allocate(d_p.c.n, "the whole frame");
            d_stager.to_device(
                d_in.get(), x, std::size_t(d_p.c.n) * sizeof(float2), d_stream.get());
            in = d_in.get();
        }
        h_xptr[0] = in;
        d_graph.run(d_stream.get(), [&] {
            cudaStream_t s = d_stream.get();
            GPUFFT_CUDA_CHECK(cudaMemcpyAsync(
                d_xptr.get(), h_xptr.get(), sizeof(void*), cudaMemcpyHostToDevice, s));
            launch_copy_frame(d_p.rc.n,
                              reinterpret_cast<const void* const*>(d_xptr.get()),
                              d_frame.get(),
                              s);
            d_fft.execute_async(d_frame.get(), d_X.get(), s);
            launch_dense_tones(d_state, s);
            launch_robust_order(d_state.header,
                                d_state.tones,
                                d_tone_cap,
                                d_p.rc.n,
                                1.0 / d_p.window_power,
                                s);
            GPUFFT_CUDA_CHECK(cudaMemcpyAsync(
                h_out.get(), d_out.get(), d_out.bytes(), cudaMemcpyDeviceToHost, s));
        });
        d_stream.synchronize();
        out.bin_noise = read_tones(h_out.get(), d_tone_cap, out);
        order_tones(out.bin_noise / d_p.window_power, out);
    }

    std::string notes() const override { return "CUDA graph"; }

private:
    sparse_params d_p;
    int d_device;
    dense_fft_plan d_fft;
    cuda::stream d_stream;
    cuda::host_stager d_stager;
    cuda::device_buffer<float2> d_in, d_frame, d_X, d_Xw;
    cuda::device_buffer<float> d_power, d_median;
    cuda::device_buffer<unsigned> d_select;
    cuda::device_buffer<double> d_scalars;
    int d_tone_cap = 0;
    cuda::device_buffer<unsigned char> d_out;
    cuda::pinned_buffer<unsigned char> h_out;
    cuda::device_buffer<const void*> d_xptr;
    cuda::pinned_buffer<const void*> h_xptr;
    cuda::device_buffer<robust_pair_seed> d_seeds; //!< the joint fits' (robust_pairs.h)
    cuda::device_buffer<int> d_seed_count;
    cuda::device_buffer<unsigned long long> d_peak_keys;
    cuda::device_buffer<int> d_peak_slots;
    robust_dense_state d_state;
    cuda::stream_graph d_graph;
};

} // namespace

std::unique_ptr<sparse_robust_backend>
make_robust_cuda(const sparse_params& p, int device_id, sparse_fft_transfer transfer)
{
    cuda::device_guard guard(device_id);
    return std::make_unique<robust_cuda>(p, device_id, transfer);
}

std::unique_ptr<sparse_robust_backend> make_dense_threshold_cuda(const sparse_params& p,
                                                                 int device_id)
{
    cuda::device_guard guard(device_id);
    return std::make_unique<dense_threshold_cuda>(p, device_id);
}

} // namespace detail
} // namespace gpufft
} // namespace gr
