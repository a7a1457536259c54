set terminal pngcairo size 900,600 noenhanced
set grid
set key left top
set output 'time_per_step.png'
set logscale xy
set xlabel 'sheep N'
set ylabel 'time per step (ms), median'
set title 'herd bench: time per step'
plot '-' with linespoints title 'cpu, 1 thread', '-' with linespoints title 'cpu, 2 threads', '-' with linespoints title 'opencl (pthread-skylake-avx512-AMD EPYC)'
1000 2.0544
3000 6.30758
10000 21.8251
30000 70.1395
50000 105.929
100000 205.704
300000 645.209
1000000 2357.9
e
1000 2.06339
3000 3.32996
10000 11.3393
30000 36.017
50000 53.0489
100000 103.552
300000 325.31
1000000 1191.9
e
1000 1.3063
3000 3.82361
10000 12.2895
30000 38.045
50000 58.9862
100000 116.988
300000 369.942
1000000 1340.32
e
set output 'speedup.png'
unset logscale y
set ylabel 'speed-up over the CPU backend, 1 thread'
set title 'herd bench: speed-up'
plot '-' with linespoints title 'cpu, 1 thread', '-' with linespoints title 'cpu, 2 threads', '-' with linespoints title 'opencl (pthread-skylake-avx512-AMD EPYC)'
1000 1
3000 1
10000 1
30000 1
50000 1
100000 1
300000 1
1000000 1
e
1000 0.995646
3000 1.89419
10000 1.92473
30000 1.9474
50000 1.99681
100000 1.98648
300000 1.98337
1000000 1.97828
e
1000 1.57268
3000 1.64964
10000 1.77592
30000 1.84359
50000 1.79582
100000 1.75833
300000 1.74408
1000000 1.75921
e
set output 'stages.png'
unset logscale
set style data histograms
set style histogram rowstacked
set style fill solid 0.8 border -1
set boxwidth 0.6
set xtics rotate by -20
set key outside right
set ylabel 'ms per step'
set xlabel ''
set title 'herd bench: time per stage at the largest N'
plot '-' using 2:xtic(1) title 'bin', '-' using 2:xtic(1) title 'sort', '-' using 2:xtic(1) title 'ranges', '-' using 2:xtic(1) title 'reorder', '-' using 2:xtic(1) title 'step', '-' using 2:xtic(1) title 'reduce', '-' using 2:xtic(1) title 'read-back'
"cpu 1t, N=1000000" 4.96786
"cpu 2t, N=1000000" 2.49671
"opencl, N=1000000" 3.23994
e
"cpu 1t, N=1000000" 7.08393
"cpu 2t, N=1000000" 7.30825
"opencl, N=1000000" 4.46612
e
"cpu 1t, N=1000000" 18.0027
"cpu 2t, N=1000000" 9.10459
"opencl, N=1000000" 8.48742
e
"cpu 1t, N=1000000" 0
"cpu 2t, N=1000000" 0
"opencl, N=1000000" 2.17085
e
"cpu 1t, N=1000000" 2279.43
"cpu 2t, N=1000000" 1148.15
"opencl, N=1000000" 1299.75
e
"cpu 1t, N=1000000" 49.5178
"cpu 2t, N=1000000" 25.3563
"opencl, N=1000000" 15.8718
e
"cpu 1t, N=1000000" 0
"cpu 2t, N=1000000" 0
"opencl, N=1000000" 0.0021534
e
