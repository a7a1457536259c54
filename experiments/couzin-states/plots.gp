set terminal pngcairo size 1000,700 noenhanced
set grid
set output 'states.png'
set title 'most common state over 100 fish from random starts'
set xlabel 'Δr_o, width of the zone of orientation (m)'
set ylabel 'Δr_a, width of the zone of attraction (m)'
set key outside right
set xrange [-0.5:15.5]
set yrange [0:17.5]
set arrow 1 from 0, 15.6 to 0.5, 15.6 heads size 0.15,90 lw 2 lc rgb '#e08214'
set arrow 2 from 0.5, 15.6 to 2.5, 15.6 heads size 0.15,90 lw 2 lc rgb '#7b3294'
set arrow 3 from 2.5, 15.6 to 6, 15.6 heads size 0.15,90 lw 2 lc rgb '#4dac26'
set arrow 4 from 6.5, 15.6 to 15, 15.6 heads size 0.15,90 lw 2 lc rgb '#0571b0'
set label 20 'regions at Δr_a = 15 [jiwy2020]' at 7.5, 16.8 center font ',9'
plot NaN with points pt 5 ps 2 lc rgb '#e08214' title 'swarm', NaN with points pt 5 ps 2 lc rgb '#7b3294' title 'torus', NaN with points pt 5 ps 2 lc rgb '#4dac26' title 'dynamic parallel group', NaN with points pt 5 ps 2 lc rgb '#0571b0' title 'highly parallel group', NaN with points pt 5 ps 2 lc rgb '#bababa' title 'none of the four', '-' using 1:2:3 with points pt 5 ps 2.2 lc rgb variable notitle
0 1 14713364
0 2 14713364
0 4 14713364
0 8 14713364
0 15 14713364
0.25 1 14713364
0.25 2 14713364
0.25 4 14713364
0.25 8 14713364
0.25 15 14713364
0.5 1 14713364
0.5 2 14713364
0.5 4 14713364
0.5 8 12237498
0.5 15 14713364
1 1 14713364
1 2 14713364
1 4 14713364
1 8 12237498
1 15 12237498
1.5 1 14713364
1.5 2 14713364
1.5 4 12237498
1.5 8 12237498
1.5 15 12237498
2 1 14713364
2 2 14713364
2 4 12237498
2 8 12237498
2 15 8073876
2.5 1 14713364
2.5 2 12237498
2.5 4 12237498
2.5 8 8073876
2.5 15 8073876
3 1 12237498
3 2 12237498
3 4 12237498
3 8 8073876
3 15 8073876
3.5 1 12237498
3.5 2 12237498
3.5 4 12237498
3.5 8 356784
3.5 15 12237498
4 1 12237498
4 2 12237498
4 4 356784
4 8 356784
4 15 356784
5 1 12237498
5 2 12237498
5 4 356784
5 8 356784
5 15 356784
6 1 12237498
6 2 12237498
6 4 356784
6 8 356784
6 15 356784
8 1 356784
8 2 356784
8 4 356784
8 8 356784
8 15 356784
10 1 356784
10 2 356784
10 4 356784
10 8 356784
10 15 356784
15 1 356784
15 2 356784
15 4 356784
15 8 356784
15 15 356784
e
unset arrow
unset label
set output 'hysteresis.png'
unset title
set multiplot layout 2,1 title 'Δr_o raised and lowered (Δr_a = 15; shaded: the regions of [jiwy2020])'
set key outside right top
set xrange [0:6]
set yrange [0:1.1]
set xlabel 'Δr_o (m)'
set object 1 rect from 0, graph 0 to 0.5, graph 1 fc rgb '#fdebd0' fs solid 0.6 noborder behind
set label 1 'swarm' at 0.25, graph 0.94 center font ',9'
set object 2 rect from 0.5, graph 0 to 2.5, graph 1 fc rgb '#ebdef0' fs solid 0.6 noborder behind
set label 2 'torus' at 1.5, graph 0.94 center font ',9'
set object 3 rect from 2.5, graph 0 to 6, graph 1 fc rgb '#d5f5e3' fs solid 0.6 noborder behind
set label 3 'dynamic parallel group' at 4.25, graph 0.94 center font ',9'
set ylabel 'polarisation p'
plot '-' using 1:2 with linespoints lw 2 pt 4 dt 1 title 'raised', '-' using 1:2 with linespoints lw 2 pt 5 dt 2 title 'lowered'
0 0.1684
0.5 0.1793
1 0.1877
1.5 0.2019
2 0.1987
2.5 0.2246
3 0.2785
3.5 0.8361
4 0.9751
4.5 0.9981
5 0.9982
5.5 0.9983
6 0.9984
e
0 0.1586
0.5 0.1642
1 0.1941
1.5 0.2687
2 0.8330
2.5 0.9741
3 0.9967
3.5 0.9976
4 0.9979
4.5 0.9981
5 0.9983
5.5 0.9984
6 0.9984
e
unset object
unset label
set object 1 rect from 0, graph 0 to 0.5, graph 1 fc rgb '#fdebd0' fs solid 0.6 noborder behind
set label 1 'swarm' at 0.25, graph 0.94 center font ',9'
set object 2 rect from 0.5, graph 0 to 2.5, graph 1 fc rgb '#ebdef0' fs solid 0.6 noborder behind
set label 2 'torus' at 1.5, graph 0.94 center font ',9'
set object 3 rect from 2.5, graph 0 to 6, graph 1 fc rgb '#d5f5e3' fs solid 0.6 noborder behind
set label 3 'dynamic parallel group' at 4.25, graph 0.94 center font ',9'
set ylabel 'milling m'
plot '-' using 1:2 with linespoints lw 2 pt 4 dt 1 title 'raised', '-' using 1:2 with linespoints lw 2 pt 5 dt 2 title 'lowered'
0 0.1422
0.5 0.2527
1 0.3638
1.5 0.5380
2 0.6997
2.5 0.7350
3 0.7590
3.5 0.2063
4 0.0355
4.5 0.0091
5 0.0099
5.5 0.0124
6 0.0121
e
0 0.1860
0.5 0.2413
1 0.3878
1.5 0.5107
2 0.1027
2.5 0.0282
3 0.0149
3.5 0.0130
4 0.0116
4.5 0.0117
5 0.0138
5.5 0.0146
6 0.0163
e
unset object
unset label
unset multiplot
set output 'variants.png'
unset title
set multiplot layout 2,1 title 'random starts (Δr_a = 15; shaded: the regions of [jiwy2020]), one line per reading'
set key outside right top
set xrange [0:15]
set yrange [0:1.1]
set xlabel 'Δr_o (m)'
set object 1 rect from 0, graph 0 to 0.5, graph 1 fc rgb '#fdebd0' fs solid 0.6 noborder behind
set label 1 'swarm' at 0.25, graph 0.94 center font ',9'
set object 2 rect from 0.5, graph 0 to 2.5, graph 1 fc rgb '#ebdef0' fs solid 0.6 noborder behind
set label 2 'torus' at 1.5, graph 0.94 center font ',9'
set object 3 rect from 2.5, graph 0 to 6, graph 1 fc rgb '#d5f5e3' fs solid 0.6 noborder behind
set label 3 'dynamic parallel group' at 4.25, graph 0.94 center font ',9'
set object 4 rect from 6.5, graph 0 to 15, graph 1 fc rgb '#d6eaf8' fs solid 0.6 noborder behind
set label 4 'highly parallel group' at 10.75, graph 0.94 center font ',9'
set ylabel 'polarisation p'
plot '-' using 1:2 with linespoints lw 2 pt 4 dt 1 title 'default', '-' using 1:2 with linespoints lw 2 pt 5 dt 1 title 'unit-vectors', '-' using 1:2 with linespoints lw 2 pt 6 dt 1 title 'no-noise', '-' using 1:2 with linespoints lw 2 pt 7 dt 1 title 'noise-0.2', '-' using 1:2 with linespoints lw 2 pt 8 dt 1 title 'no-blind-cone', '-' using 1:2 with linespoints lw 2 pt 9 dt 1 title 'settle-6000', '-' using 1:2 with linespoints lw 2 pt 10 dt 1 title 'dense-start', '-' using 1:2 with linespoints lw 2 pt 11 dt 1 title 'sparse-start'
0 0.1623
0.25 0.1735
0.5 0.1778
1 0.1854
1.5 0.1918
2 0.1906
2.5 0.2016
3 0.2874
3.5 0.7448
4 0.9635
5 0.9983
6 0.9984
8 0.9985
10 0.9986
15 0.9986
e
0 0.1623
0.25 0.1413
0.5 0.0905
1 0.0835
1.5 0.0899
2 0.2651
2.5 0.5706
3 0.8802
3.5 0.9086
4 0.9062
5 0.9044
6 0.9985
8 0.9986
10 0.9986
15 0.9986
e
0 0.1819
0.25 0.1798
0.5 0.1889
1 0.2116
1.5 0.2043
2 0.2004
2.5 0.2256
3 0.3072
3.5 0.7682
4 0.9723
5 0.9996
6 0.9998
8 0.9999
10 1.0000
15 1.0000
e
0 0.0914
0.25 0.1004
0.5 0.1060
1 0.1173
1.5 0.1293
2 0.1197
2.5 0.1150
3 0.1496
3.5 0.2340
4 0.7564
5 0.9934
6 0.9937
8 0.9940
10 0.9941
15 0.9941
e
0 0.1382
0.25 0.1481
0.5 0.1577
1 0.1771
1.5 0.2129
2 0.2640
2.5 0.3445
3 0.5959
3.5 0.9675
4 0.9968
5 0.9978
6 0.9982
8 0.9985
10 0.9985
15 0.9986
e
0 0.1666
0.25 0.1706
0.5 0.1731
1 0.1923
1.5 0.1879
2 0.1814
2.5 0.2136
3 0.2872
3.5 0.9847
4 0.9977
5 0.9982
6 0.9984
8 0.9985
10 0.9986
15 0.9986
e
0 0.1685
0.25 0.1701
0.5 0.1719
1 0.1990
1.5 0.1851
2 0.2088
2.5 0.1922
3 0.2828
3.5 0.6808
4 0.9979
5 0.9983
6 0.9984
8 0.9985
10 0.9986
15 0.9986
e
0 0.1409
0.25 0.1402
0.5 0.1552
1 0.1744
1.5 0.1771
2 0.1909
2.5 0.2501
3 0.4796
3.5 0.9619
4 0.9919
5 0.9983
6 0.9985
8 0.9985
10 0.9986
15 0.9986
e
unset object
unset label
set object 1 rect from 0, graph 0 to 0.5, graph 1 fc rgb '#fdebd0' fs solid 0.6 noborder behind
set label 1 'swarm' at 0.25, graph 0.94 center font ',9'
set object 2 rect from 0.5, graph 0 to 2.5, graph 1 fc rgb '#ebdef0' fs solid 0.6 noborder behind
set label 2 'torus' at 1.5, graph 0.94 center font ',9'
set object 3 rect from 2.5, graph 0 to 6, graph 1 fc rgb '#d5f5e3' fs solid 0.6 noborder behind
set label 3 'dynamic parallel group' at 4.25, graph 0.94 center font ',9'
set object 4 rect from 6.5, graph 0 to 15, graph 1 fc rgb '#d6eaf8' fs solid 0.6 noborder behind
set label 4 'highly parallel group' at 10.75, graph 0.94 center font ',9'
set ylabel 'milling m'
plot '-' using 1:2 with linespoints lw 2 pt 4 dt 1 title 'default', '-' using 1:2 with linespoints lw 2 pt 5 dt 1 title 'unit-vectors', '-' using 1:2 with linespoints lw 2 pt 6 dt 1 title 'no-noise', '-' using 1:2 with linespoints lw 2 pt 7 dt 1 title 'noise-0.2', '-' using 1:2 with linespoints lw 2 pt 8 dt 1 title 'no-blind-cone', '-' using 1:2 with linespoints lw 2 pt 9 dt 1 title 'settle-6000', '-' using 1:2 with linespoints lw 2 pt 10 dt 1 title 'dense-start', '-' using 1:2 with linespoints lw 2 pt 11 dt 1 title 'sparse-start'
0 0.1865
0.25 0.2165
0.5 0.2367
1 0.3612
1.5 0.5425
2 0.6860
2.5 0.7509
3 0.7487
3.5 0.3030
4 0.0519
5 0.0145
6 0.0159
8 0.0224
10 0.0237
15 0.0222
e
0 0.1865
0.25 0.7414
0.5 0.8546
1 0.8887
1.5 0.8928
2 0.7224
2.5 0.4099
3 0.0753
3.5 0.0326
4 0.0319
5 0.0329
6 0.0096
8 0.0151
10 0.0225
15 0.0381
e
0 0.1893
0.25 0.2305
0.5 0.2899
1 0.3710
1.5 0.5353
2 0.6871
2.5 0.7380
3 0.7416
3.5 0.2884
4 0.0397
5 0.0130
6 0.0139
8 0.0397
10 0.0294
15 0.0282
e
0 0.0973
0.25 0.1189
0.5 0.1308
1 0.2660
1.5 0.5668
2 0.7610
2.5 0.8015
3 0.8114
3.5 0.7728
4 0.2752
5 0.0188
6 0.0191
8 0.0198
10 0.0206
15 0.0209
e
0 0.1317
0.25 0.1544
0.5 0.1860
1 0.3022
1.5 0.4655
2 0.5523
2.5 0.6081
3 0.4926
3.5 0.0564
4 0.0138
5 0.0105
6 0.0099
8 0.0288
10 0.0392
15 0.0284
e
0 0.1730
0.25 0.2053
0.5 0.2448
1 0.3685
1.5 0.5467
2 0.7023
2.5 0.7442
3 0.7517
3.5 0.0263
4 0.0120
5 0.0134
6 0.0131
8 0.0170
10 0.0238
15 0.0216
e
0 0.1758
0.25 0.1960
0.5 0.2421
1 0.3874
1.5 0.5367
2 0.6795
2.5 0.7490
3 0.7544
3.5 0.3684
4 0.0112
5 0.0128
6 0.0145
8 0.0359
10 0.0750
15 0.0676
e
0 0.1471
0.25 0.1567
0.5 0.1759
1 0.2526
1.5 0.4244
2 0.5446
2.5 0.7042
3 0.5202
3.5 0.0798
4 0.0243
5 0.0118
6 0.0118
8 0.0223
10 0.0289
15 0.0420
e
unset object
unset label
unset multiplot
