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
10 5 1.000000
10 5 1.000000
10 5 1.000000
20 10 1.000000
20 10 1.000000
20 10 1.000000
20 10 1.000000
20 10 1.000000
40 20 1.000000
40 20 1.000000
40 20 1.000000
40 20 1.000000
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
10 254.0 235.8 324.2
10 526.0 323.0 626.0
10 251.0 232.2 267.8
10 438.0 252.5 638.8
10 262.5 250.2 533.2
20 262.5 255.0 333.8
20 359.5 268.0 675.5
20 250.5 243.0 272.2
20 275.5 252.8 326.5
20 256.0 247.0 263.8
40 274.0 271.0 276.5
40 303.0 295.0 344.5
40 264.0 258.0 268.2
40 262.0 259.8 292.8
40 267.0 264.0 270.5
e
