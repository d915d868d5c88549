# Large out-of-card FFT engine (issue 5): planner, CPU backend, plan front end.
list(APPEND GPUFFT_SOURCES large/large_fft_schedule.cc large/large_fft_planner.cc large/large_fft_backend.cc
     large/large_fft_host.cc large/host_transpose.cc large/large_fft_cpu.cc large/large_fft_plan.cc
     large/large_fft_trace.cc large/device_budget.cc large/peer_exchange.cc)
list(APPEND GPUFFT_CUDA_SOURCES large/large_fft_cuda.cc large/large_copy_lane.cc
     large/large_pass_compute.cc large/large_fft_kernels.cu large/stockham_fft.cu
     large/four_step_fft.cu large/large_fft_peer.cc large/peer_kernels.cu)
# Integrated power spectra (the accumulator's engine): fused on the GPU when a frame
# fits, one FFTW execute and fused VOLK passes on the CPU when it fits beside its work
# array, the large FFT plus a host reduction otherwise.
list(APPEND GPUFFT_SOURCES large/power/spectrum_integrator.cc large/power/host_integrator.cc
     large/power/band_reducer.cc large/power/spectral_window.cc large/power/cpu_integrator.cc
     large/power/fftw_wisdom.cc)
list(APPEND GPUFFT_CUDA_SOURCES large/power/device_integrator.cc large/power/power_kernels.cu
     large/power/fused_device.cc large/power/multi_device_integrator.cc)
