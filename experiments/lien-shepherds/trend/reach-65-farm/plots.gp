set terminal pngcairo size 900,600 noenhanced
set grid
set key outside right
set output 'success.png.part'
set title 'success rate'
set xlabel 'sheep.count'
set xrange [8.2:41.8]
set ylabel 'sheep.neighbours'
set yrange [4.1:20.9]
set cblabel 'success rate'
set cbrange [0:1]
set view map
set palette defined (0 '#b2182b', 0.5 '#f4a442', 1 '#2166ac')
splot '-' using 1:2:3 with points pointtype 5 pointsize 2.5 palette notitle
10 5 1.000000
10 5 0.850000
10 5 0.800000
10 5 0.200000
10 5 0.650000
20 10 1.000000
20 10 0.900000
20 10 0.900000
20 10 0.400000
20 10 0.650000
40 20 1.000000
40 20 0.800000
40 20 1.000000
40 20 0.650000
40 20 1.000000
e
unset view
unset cblabel
set autoscale
set ytics auto
set output 'steps.png.part'
set title 'steps to success: median and quartiles'
set autoscale y
set ylabel 'steps (successful runs)'
set xlabel 'sheep.count'
set xrange [8.2:41.8]
plot '-' using 1:2:3:4 with yerrorlines title 'all'
10 296.0 238.8 343.2
10 529.0 397.0 746.0
10 262.0 237.0 281.0
10 247.5 242.0 258.2
10 254.0 240.0 274.0
20 265.0 256.8 301.8
20 701.5 540.8 983.8
20 271.5 256.0 283.2
20 267.5 258.5 273.2
20 268.0 253.0 279.0
40 279.0 275.0 282.0
40 370.0 312.0 821.8
40 275.5 268.8 283.0
40 290.0 272.0 293.0
40 280.0 274.0 290.5
e
