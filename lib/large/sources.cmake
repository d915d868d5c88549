# Large out-of-card FFT engine (issue 5): planner, CPU backend, plan front end.
list(APPEND GPUFFT_SOURCES large/large_fft_schedule.cc large/large_fft_backend.cc
     large/large_fft_host.cc large/large_fft_cpu.cc large/large_fft_plan.cc)
list(APPEND GPUFFT_CUDA_SOURCES large/large_fft_cuda.cc large/large_fft_kernels.cu)
