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
10 5 0.900000
10 5 0.600000
10 5 0.200000
10 5 0.550000
20 10 1.000000
20 10 0.950000
20 10 0.900000
20 10 0.250000
20 10 0.750000
40 20 1.000000
40 20 0.950000
40 20 1.000000
40 20 0.100000
40 20 0.700000
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
10 303.0 273.5 388.8
10 716.5 438.8 1132.8
10 264.0 246.8 274.5
10 276.5 262.2 349.0
10 267.0 241.5 270.0
20 325.5 278.2 420.2
20 471.0 300.0 668.0
20 271.0 253.2 307.0
20 1545.0 1200.0 1727.0
20 276.0 259.0 309.5
40 296.0 285.5 416.5
40 448.0 320.5 941.0
40 278.5 269.0 343.2
40 647.0 631.5 662.5
40 280.5 274.2 287.0
e
