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
10 5 1.000000
10 5 1.000000
10 5 1.000000
10 5 1.000000
20 10 1.000000
20 10 1.000000
20 10 1.000000
20 10 1.000000
20 10 1.000000
40 20 0.450000
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
10 292.5 265.8 330.5
10 306.5 266.8 446.8
10 250.0 237.2 282.0
10 253.0 245.0 262.0
10 238.5 231.8 266.0
20 390.5 295.8 461.8
20 311.5 273.0 324.5
20 254.0 239.8 276.2
20 277.5 261.0 300.0
20 255.5 245.8 275.2
40 658.0 556.0 1238.0
40 297.0 276.5 316.8
40 284.5 272.8 309.0
40 285.0 270.0 293.8
40 267.0 259.8 280.2
e
