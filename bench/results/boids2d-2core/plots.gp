set terminal pngcairo size 900,600 noenhanced
set grid
set key left top
set output 'time_per_step.png'
set logscale xy
set xlabel 'agents N'
set ylabel 'time per step (ms), median'
set title 'herd bench: time per step'
plot '-' with linespoints title 'cpu, 1 thread', '-' with linespoints title 'cpu, 2 threads', '-' with linespoints title 'opencl (pthread-skylake-avx512-AMD EPYC)'
1000 1.26157
3000 3.65801
10000 9.74216
30000 28.7982
50000 47.1019
100000 96.2021
300000 299.944
1000000 1050.64
e
1000 1.30594
3000 2.32998
10000 5.45431
30000 13.1472
50000 21.1302
100000 42.0404
300000 127.665
1000000 421.15
e
1000 0.915449
3000 2.26678
10000 5.96438
30000 14.4308
50000 22.507
100000 45.9889
300000 138.488
1000000 478.769
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
1000 0.966023
3000 1.56998
10000 1.78614
30000 2.19045
50000 2.22913
100000 2.28833
300000 2.34947
1000000 2.49469
e
1000 1.37809
3000 1.61375
10000 1.63339
30000 1.99561
50000 2.09277
100000 2.09185
300000 2.16585
1000000 2.19446
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
"cpu 1t, N=1000000" 9.82661
"cpu 2t, N=1000000" 3.6154
"opencl, N=1000000" 6.23503
e
"cpu 1t, N=1000000" 8.25174
"cpu 2t, N=1000000" 6.35424
"opencl, N=1000000" 5.61317
e
"cpu 1t, N=1000000" 22.2097
"cpu 2t, N=1000000" 9.07239
"opencl, N=1000000" 13.0046
e
"cpu 1t, N=1000000" 0
"cpu 2t, N=1000000" 0
"opencl, N=1000000" 3.07961
e
"cpu 1t, N=1000000" 892.053
"cpu 2t, N=1000000" 358.183
"opencl, N=1000000" 435.15
e
"cpu 1t, N=1000000" 121.68
"cpu 2t, N=1000000" 46.971
"opencl, N=1000000" 14.8548
e
"cpu 1t, N=1000000" 0
"cpu 2t, N=1000000" 0
"opencl, N=1000000" 0.0011222
e
