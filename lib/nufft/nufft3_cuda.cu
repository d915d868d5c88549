// placeholder while the CPU side is brought up
