set terminal pngcairo size 900,600 noenhanced
set grid
set key left top
set output 'time_per_step.png'
set logscale xy
set xlabel 'agents N'
set ylabel 'time per step (ms), median'
set title 'herd bench: time per step'
plot '-' with linespoints title 'cpu, 1 thread', '-' with linespoints title 'cpu, 2 threads', '-' with linespoints title 'opencl (pthread-skylake-avx512-AMD EPYC)'
1000 3.9819
3000 6.17234
10000 14.7725
30000 58.1274
50000 97.759
100000 160.138
300000 424.678
1000000 1662.96
e
1000 3.77829
3000 3.43469
10000 9.36374
30000 29.6398
50000 52.7949
100000 82.3533
300000 210.142
1000000 855.674
e
1000 3.22846
3000 5.08828
10000 11.8511
30000 39.6901
50000 68.2679
100000 110.229
300000 284.866
1000000 1087.3
e
set output 'speedup.png'
unset logscale y
set ylabel 'speed-up over cpu, 1 thread'
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
1000 1.05389
3000 1.79706
10000 1.57763
30000 1.96113
50000 1.85168
100000 1.94452
300000 2.0209
1000000 1.94345
e
1000 1.23337
3000 1.21305
10000 1.24651
30000 1.46453
50000 1.43199
100000 1.45277
300000 1.4908
1000000 1.52943
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
"cpu 1t, N=1000000" 7.73148
"cpu 2t, N=1000000" 4.07583
"opencl, N=1000000" 7.51171
e
"cpu 1t, N=1000000" 9.17121
"cpu 2t, N=1000000" 9.85628
"opencl, N=1000000" 6.76205
e
"cpu 1t, N=1000000" 21.1553
"cpu 2t, N=1000000" 10.8065
"opencl, N=1000000" 14.9913
e
"cpu 1t, N=1000000" 0
"cpu 2t, N=1000000" 0
"opencl, N=1000000" 3.23711
e
"cpu 1t, N=1000000" 1538.5
"cpu 2t, N=1000000" 790.401
"opencl, N=1000000" 1031.59
e
"cpu 1t, N=1000000" 87.7565
"cpu 2t, N=1000000" 44.6771
"opencl, N=1000000" 15.8621
e
"cpu 1t, N=1000000" 0
"cpu 2t, N=1000000" 0
"opencl, N=1000000" 0.0015872
e
