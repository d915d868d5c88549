# Large out-of-card FFT engine (issue 5).
gpufft_add_test(test_large_fft_cpu SOURCES large/test_large_fft_cpu.cc)
gpufft_add_test(test_large_fft_cuda SOURCES large/test_large_fft_cuda.cc GPU)
