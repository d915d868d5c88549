/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// CUDA backend of the sparse FFT. Every stage runs on the device: hash (window, permute,
// fold), one batched cuFFT of all hashes, peak, peeling rounds (decode + subtract),
// values (median, then CGLS), residual check (the last CG step sums the residual
// energy; in a frame that it shows not to be exactly sparse, each tone's loops must agree
// on its value), selection (radix select over the located tones, or over the vouched-for
// ones of a frame that is not exactly sparse; never n). The steady-state call is one CUDA
// graph launch (~30 nodes) and one copy of the result block (count, flags, k bins, k
// values).
//
// The kernels are in sparse_kernels.cu, sparse_value_kernels.cu and
// sparse_vote_kernels.cu behind the launchers of sparse_kernels.h; this file owns the
// buffers, the graph and the transfers. Host input: either only the samples the hashes
// read are gathered (host threads, into pinned staging) and copied, or all n samples are
// copied; the first host call times both and keeps the faster
// (sparse_fft_transfer::automatic).

#include "cuda/cuda_resources.h"
#include "cuda/host_transfer.h"
#include "sparse/common/host_gather.h"
#include "sparse/common/sparse_cuda_setup.h"
#include "sparse/common/topk_cuda.h"
#include "sparse/exact/exact_backend.h"
#include "sparse/exact/exact_kernels.h"
#include <gnuradio/gpufft/dense_fft_plan.h>
#include <algorithm>
#include <chrono>
#include <sstream>

namespace gr {
namespace gpufft {
namespace detail {

namespace {

class sparse_cuda final : public sparse_exact_backend
{
public:
    sparse_cuda(const sparse_params& p, int device_id, sparse_fft_transfer transfer)
        : d_p(p),
          d_device(device_id),
          d_transfer(transfer),
          d_fft(p.c.B, p.hashes(), direction::forward, cuda_fft_options(device_id))
    {
        const auto& c = d_p.c;
        const int H = d_p.hashes();
        const std::size_t HB = std::size_t(H) * c.B;
        d_hash_plan.upload(p, d_stream.get());
        d_z.allocate(HB, "the bucket samples");
        d_Z.allocate(HB, "the buckets");
        d_xptr.allocate(1);
        d_h_xptr.allocate(1);
        d_peak.allocate(1);
        d_bad.allocate(1);
        d_max_found = int(p.max_found);
        d_table_size = pow2_at_least(
            2 * (std::uint64_t(p.max_found) + std::uint64_t(c.loops) * c.B));
        d_table.allocate(d_table_size);
        d_found_f.allocate(d_max_found);
        d_found_x.allocate(d_max_found);
        d_count.allocate(1);
        d_count_at.allocate(p.rounds + 1);
        d_per = c.loops * 3 * c.levels;
        d_vx.allocate(d_max_found);
        d_resp.allocate(std::size_t(d_max_found) * d_per);
        d_at.allocate(std::size_t(d_max_found) * d_per);
        d_R.allocate(HB);
        d_q.allocate(HB);
        d_s.allocate(d_max_found);
        d_pdir[0].allocate(d_max_found);
        d_pdir[1].allocate(d_max_found);
        d_gamma.allocate(p.value_passes + 1);
        d_qq.allocate(std::max(1, p.value_passes));
        d_energy.allocate(2);
        d_keep.allocate(d_max_found);
        d_vm.allocate(d_max_found);
        const std::size_t out_bytes =
            sizeof(sparse_device_header) +
            std::size_t(p.k) * (sizeof(long long) + sizeof(float2));
        d_out.allocate(out_bytes);
        h_out.allocate(out_bytes);
        if (p.voting) {
            // n bits per loop; zeroed here once, then each call clears the words it set.
            d_vote_words = (std::uint64_t(c.n) + 63) / 64;
            d_bits.allocate(std::size_t(c.loops) * d_vote_words);
            d_sel.allocate(std::size_t(c.loops) * p.vote_cutoff);
            d_nsel.allocate(c.loops);
            d_decoded.allocate(std::size_t(c.loops) * c.B);
            d_decoded_x.allocate(std::size_t(c.loops) * c.B);
            GPUFFT_CUDA_CHECK(
                cudaMemsetAsync(d_bits.get(), 0, d_bits.bytes(), d_stream.get()));
            GPUFFT_CUDA_CHECK(cudaMemsetAsync(
                d_decoded.get(), 0xff, d_decoded.bytes(), d_stream.get())); // all -1
        }

        d_stream.synchronize(); // the hash plan's copies
        fill_state();
    }

    ~sparse_cuda() override
    {
        for (auto& g : d_graph)
            if (g)
                cudaGraphExecDestroy(g);
    }

    void execute(const std::complex<float>* x,
                 memory where,
                 std::vector<std::int64_t>& bins,
                 std::vector<std::complex<float>>& values) override
    {
        cuda::device_guard guard(d_device);
        if (where == memory::device) {
            d_stream.follow_default_stream();
            run_device(reinterpret_cast<const float2*>(x));
        } else {
            if (d_transfer == sparse_fft_transfer::automatic)
                choose_transfer(x);
            if (d_transfer == sparse_fft_transfer::gather)
                run_gathered(x);
            else
                run_full_copy(x);
        }
        finish(bins, values);
    }

    bool not_sparse() const override { return d_not_sparse; }

    std::string notes() const override
    {
        std::ostringstream os;
        os << "host input: "
           << (d_transfer == sparse_fft_transfer::gather      ? "gather touched samples"
               : d_transfer == sparse_fft_transfer::full_copy ? "copy all n"
                                                              : "measured on first call");
        if (!d_measure.empty())
            os << " (" << d_measure << ")";
        os << ", " << (d_use_graph ? "CUDA graph" : "stream launches");
        return os.str();
    }

private:
    // The device arrays and sizes the launchers need (sparse_kernels.h).
    void fill_state()
    {
        const auto& p = d_p;
        auto& s = d_state;
        s.c = p.c;
        s.k = p.k;
        s.window = p.window;
        s.half_window = p.half_window;
        s.taps = d_hash_plan.taps.get();
        s.walks = d_hash_plan.walks.get();
        s.sigma = d_hash_plan.sigma.get();
        s.sigma_inv = d_hash_plan.sigma_inv.get();
        s.tau = d_hash_plan.tau.get();
        s.x_ptr = reinterpret_cast<const void* const*>(d_xptr.get());
        s.z = reinterpret_cast<float*>(d_z.get());
        s.Z = reinterpret_cast<float*>(d_Z.get());
        s.peak = d_peak.get();
        s.bad = d_bad.get();
        s.threshold_rel = p.threshold_rel;
        s.table = d_table.get();
        s.table_size = d_table_size;
        s.found_f = d_found_f.get();
        s.found_x = reinterpret_cast<double*>(d_found_x.get());
        s.count = d_count.get();
        s.count_at = d_count_at.get();
        s.max_found = d_max_found;
        s.rounds = p.rounds;
        s.x = reinterpret_cast<double*>(d_vx.get());
        s.resp = reinterpret_cast<double*>(d_resp.get());
        s.at = d_at.get();
        s.per = d_per;
        s.R = reinterpret_cast<double*>(d_R.get());
        s.q = reinterpret_cast<double*>(d_q.get());
        s.s = reinterpret_cast<double*>(d_s.get());
        s.p[0] = reinterpret_cast<double*>(d_pdir[0].get());
        s.p[1] = reinterpret_cast<double*>(d_pdir[1].get());
        s.gamma = d_gamma.get();
        s.qq = d_qq.get();
        s.value_passes = p.value_passes;
        s.energy = d_energy.get();
        s.keep = d_keep.get();
        s.vm = reinterpret_cast<double*>(d_vm.get());
        s.voting = p.voting;
        s.bits = d_bits.get();
        s.vote_words = d_vote_words;
        s.sel = d_sel.get();
        s.nsel = d_nsel.get();
        s.decoded = d_decoded.get();
        s.decoded_x = reinterpret_cast<double*>(d_decoded_x.get());
        s.vote_cutoff = p.vote_cutoff;
        s.vote_threshold = p.vote_threshold;
        s.header = reinterpret_cast<sparse_device_header*>(d_out.get());
        s.out_f =
            reinterpret_cast<long long*>(d_out.get() + sizeof(sparse_device_header));
        s.out_x = reinterpret_cast<float*>(d_out.get() + sizeof(sparse_device_header) +
                                           std::size_t(p.k) * sizeof(long long));
    }

    // Everything after the samples are on the device, on d_stream. mode 0: read x through
    // d_xptr (device input), 1: read the staged gather.
    void enqueue(int mode)
    {
        cudaStream_t s = d_stream.get();
        launch_sparse_reset(d_state, s);
        if (mode == 0) {
            GPUFFT_CUDA_CHECK(cudaMemcpyAsync(
                d_xptr.get(), d_h_xptr.get(), sizeof(void*), cudaMemcpyHostToDevice, s));
        } else {
            GPUFFT_CUDA_CHECK(cudaMemcpyAsync(d_staged.get(),
                                              h_staged.get(),
                                              d_staged.bytes(),
                                              cudaMemcpyHostToDevice,
                                              s));
        }
        launch_sparse_hash(d_state, mode == 1, s);
        d_fft.execute_async(d_z.get(), d_Z.get(), s);
        launch_sparse_peak(d_state, s);
        if (d_p.voting)
            launch_sparse_voting(d_state, s);
        else
            for (int round = 0; round < d_p.rounds; ++round)
                launch_sparse_round(d_state, round, s);
        launch_sparse_values(d_state, s);
        launch_sparse_select(d_state, s);
        GPUFFT_CUDA_CHECK(cudaMemcpyAsync(
            h_out.get(), d_out.get(), d_out.bytes(), cudaMemcpyDeviceToHost, s));
    }

    // The steady-state call: one graph launch (captured on first use of each mode).
    void launch(int mode)
    {
        if (d_use_graph && !d_graph[mode]) {
            cudaGraph_t graph = nullptr;
            GPUFFT_CUDA_CHECK(
                cudaStreamBeginCapture(d_stream.get(), cudaStreamCaptureModeThreadLocal));
            try {
                enqueue(mode);
            } catch (...) {
                cudaStreamEndCapture(d_stream.get(), &graph);
                if (graph)
                    cudaGraphDestroy(graph);
                cudaGetLastError();
                d_use_graph = false; // fall back to plain launches
            }
            if (d_use_graph) {
                GPUFFT_CUDA_CHECK(cudaStreamEndCapture(d_stream.get(), &graph));
                const cudaError_t err = cudaGraphInstantiate(&d_graph[mode], graph, 0);
                cudaGraphDestroy(graph);
                if (err != cudaSuccess) {
                    cudaGetLastError();
                    d_graph[mode] = nullptr;
                    d_use_graph = false;
                }
            }
        }
        if (d_use_graph)
            GPUFFT_CUDA_CHECK(cudaGraphLaunch(d_graph[mode], d_stream.get()));
        else
            enqueue(mode);
    }

    void run_device(const float2* x)
    {
        d_h_xptr[0] = x;
        launch(0);
    }

    void ensure_gather()
    {
        if (h_staged.get())
            return;
        d_gather_index = gather_indices(d_p);
        h_staged.allocate(d_gather_index.size());
        d_staged.allocate(d_gather_index.size());
        d_state.staged = reinterpret_cast<const float*>(d_staged.get());
        d_gather = std::make_unique<host_gather>(
            host_gather::threads_for(d_gather_index.size()));
    }

    void run_gathered(const std::complex<float>* x)
    {
        ensure_gather();
        d_gather->run(x,
                      d_gather_index.data(),
                      d_gather_index.size(),
                      reinterpret_cast<std::complex<float>*>(h_staged.get()));
        launch(1);
    }

    void run_full_copy(const std::complex<float>* x)
    {
        const std::size_t bytes = std::size_t(d_p.c.n) * sizeof(float2);
        if (!d_full.get())
            d_full.allocate(d_p.c.n, "the whole frame");
        d_stager.to_device(d_full.get(), x, bytes, d_stream.get());
        run_device(d_full.get());
    }

    // Times both host paths on this input (each after a warm-up) and keeps the faster.
    void choose_transfer(const std::complex<float>* x)
    {
        std::vector<std::int64_t> b;
        std::vector<std::complex<float>> v;
        auto time_it = [&](auto&& fn) {
            fn();
            d_stream.synchronize();
            const auto t0 = std::chrono::steady_clock::now();
            fn();
            d_stream.synchronize();
            return std::chrono::duration<double, std::milli>(
                       std::chrono::steady_clock::now() - t0)
                .count();
        };
        const double tg = time_it([&] { run_gathered(x); });
        double tf = 1e300;
        std::size_t free_b = 0, total_b = 0;
        GPUFFT_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
        const std::size_t need = std::size_t(d_p.c.n) * sizeof(float2);
        if (need < free_b / 2) {
            tf = time_it([&] { run_full_copy(x); });
            std::ostringstream os;
            os << "gather " << tg << " ms vs copy " << tf << " ms";
            d_measure = os.str();
        } else {
            d_measure = "no room for an n-sample device copy";
        }
        d_transfer =
            tg <= tf ? sparse_fft_transfer::gather : sparse_fft_transfer::full_copy;
        if (d_transfer == sparse_fft_transfer::gather)
            d_full.release();
        else {
            h_staged.release();
            d_staged.release();
            d_state.staged = nullptr;
            d_gather_index.clear();
            d_gather_index.shrink_to_fit();
            d_gather.reset();
        }
    }

    void finish(std::vector<std::int64_t>& bins, std::vector<std::complex<float>>& values)
    {
        d_stream.synchronize();
        const auto* hdr = reinterpret_cast<const sparse_device_header*>(h_out.get());
        d_not_sparse = !hdr->bad && hdr->not_sparse != 0;
        if (hdr->bad)
            throw_non_finite();
        const auto* f = reinterpret_cast<const long long*>(h_out.get() +
                                                           sizeof(sparse_device_header));
        const auto* x =
            reinterpret_cast<const float2*>(h_out.get() + sizeof(sparse_device_header) +
                                            std::size_t(d_p.k) * sizeof(long long));
        const int count = std::min<int>(hdr->count, int(d_p.k));
        bins.resize(count);
        values.resize(count);
        for (int i = 0; i < count; ++i) {
            bins[i] = f[i];
            values[i] = std::complex<float>(x[i].x, x[i].y);
        }
        keep_top_k_sorted(d_p.k, bins, values); // orders by bin
    }

    sparse_params d_p;
    int d_device;
    sparse_fft_transfer d_transfer;
    std::string d_measure;
    dense_fft_plan d_fft;
    cuda::stream d_stream;
    cuda::host_stager d_stager;
    device_hash_plan d_hash_plan;
    cuda::device_buffer<float2> d_z, d_Z;
    cuda::device_buffer<const float2*> d_xptr;
    cuda::pinned_buffer<const float2*> d_h_xptr;
    cuda::device_buffer<unsigned int> d_peak;
    cuda::device_buffer<int> d_bad;
    int d_max_found = 0;
    unsigned long long d_table_size = 0;
    cuda::device_buffer<unsigned long long> d_table;
    cuda::device_buffer<long long> d_found_f;
    cuda::device_buffer<double2> d_found_x;
    cuda::device_buffer<int> d_count, d_count_at;
    int d_per = 0;
    cuda::device_buffer<double2> d_vx, d_resp, d_R, d_q, d_s, d_pdir[2];
    cuda::device_buffer<int> d_at;
    cuda::device_buffer<double> d_gamma, d_qq;
    // Residual check: hashed and residual energy, per tone vouched-for and median value.
    cuda::device_buffer<double> d_energy;
    cuda::device_buffer<int> d_keep;
    cuda::device_buffer<double2> d_vm;
    bool d_not_sparse = false;
    cuda::device_buffer<unsigned char> d_out; // out_header, k bins, k values
    cuda::pinned_buffer<unsigned char> h_out;
    // Host-input paths.
    std::vector<std::uint64_t> d_gather_index;
    std::unique_ptr<host_gather> d_gather;
    cuda::pinned_buffer<float2> h_staged;
    cuda::device_buffer<float2> d_staged;
    cuda::device_buffer<float2> d_full;
    // Voting location (allocated only when d_p.voting).
    unsigned long long d_vote_words = 0;
    cuda::device_buffer<unsigned long long> d_bits;
    cuda::device_buffer<long long> d_sel, d_decoded;
    cuda::device_buffer<int> d_nsel;
    cuda::device_buffer<double2> d_decoded_x;
    sparse_device_state d_state;
    bool d_use_graph = true; // false once a capture failed: stream launches
    cudaGraphExec_t d_graph[2] = { nullptr, nullptr };
};

class dense_topk_cuda final : public sparse_exact_backend
{
public:
    dense_topk_cuda(std::int64_t n, std::int64_t k, int device_id)
        : d_device(device_id),
          d_n(n),
          d_fft(n, 1, direction::forward, cuda_fft_options(device_id)),
          d_X(n),
          d_topk(n, k),
          d_energy(1),
          h_energy(1)
    {
    }
    void execute(const std::complex<float>* x,
                 memory where,
                 std::vector<std::int64_t>& bins,
                 std::vector<std::complex<float>>& values) override
    {
        cuda::device_guard guard(d_device);
        const void* in = x;
        if (where == memory::device)
            d_stream.follow_default_stream();
        if (where == memory::host) {
            if (!d_in.get())
                d_in.allocate(d_n);
            d_stager.to_device(
                d_in.get(), x, std::size_t(d_n) * sizeof(float2), d_stream.get());
            in = d_in.get();
        }
        d_fft.execute_async(in, d_X.get(), d_stream.get());
        const auto* X = reinterpret_cast<const std::complex<float>*>(d_X.get());
        d_topk.enqueue(X, d_stream.get());
        launch_power_sum(X, d_n, d_energy.get(), d_stream.get());
        GPUFFT_CUDA_CHECK(cudaMemcpyAsync(h_energy.get(),
                                          d_energy.get(),
                                          sizeof(double),
                                          cudaMemcpyDeviceToHost,
                                          d_stream.get()));
        d_stream.synchronize();
        d_topk.result(bins, values);
        d_not_sparse = dense_not_sparse(*h_energy.get(), values);
    }
    bool not_sparse() const override { return d_not_sparse; }

private:
    int d_device;
    std::int64_t d_n;
    dense_fft_plan d_fft;
    cuda::stream d_stream;
    cuda::host_stager d_stager;
    cuda::device_buffer<float2> d_in;
    cuda::device_buffer<float2> d_X;
    device_topk d_topk;
    cuda::device_buffer<double> d_energy;
    cuda::pinned_buffer<double> h_energy;
    bool d_not_sparse = false;
};

} // namespace

std::unique_ptr<sparse_exact_backend>
make_sparse_cuda(const sparse_params& p, int device_id, sparse_fft_transfer transfer)
{
    cuda::device_guard guard(device_id);
    return std::make_unique<sparse_cuda>(p, device_id, transfer);
}

std::unique_ptr<sparse_exact_backend>
make_dense_topk_cuda(std::int64_t n, std::int64_t k, int device_id)
{
    cuda::device_guard guard(device_id);
    return std::make_unique<dense_topk_cuda>(n, k, device_id);
}

} // namespace detail
} // namespace gpufft
} // namespace gr
