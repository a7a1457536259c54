set terminal pngcairo size 900,600 noenhanced
set grid
set key outside right
set output 'success.png.part'
set title 'success rate'
set xlabel 'sheep.repulsion'
set xrange [0.92:21.08]
set ylabel 'agents[0].count'
set yrange [0.76:5.24]
set cblabel 'success rate'
set cbrange [0:1]
set view map
set palette defined (0 '#b2182b', 0.5 '#f4a442', 1 '#2166ac')
splot '-' using 1:2:3 with points pointtype 5 pointsize 2.5 palette notitle
2 1 0.450000
2 2 1.000000
2 3 1.000000
2 4 1.000000
2 5 1.000000
10 1 0.000000
10 2 1.000000
10 3 1.000000
10 4 1.000000
10 5 1.000000
20 1 0.000000
20 2 1.000000
20 3 1.000000
20 4 1.000000
20 5 1.000000
e
unset view
unset cblabel
set autoscale
set ytics auto
set output 'steps.png.part'
set title 'steps to success: median and quartiles'
set autoscale y
set ylabel 'steps (successful runs)'
set xlabel 'sheep.repulsion'
set xrange [0.92:21.08]
plot '-' using 1:2:3:4 with yerrorlines title 'all'
2 986.0 904.0 1503.0
2 291.5 281.0 332.2
2 300.0 274.2 318.2
2 277.5 263.8 292.5
2 266.5 262.2 274.0
10 668.0 646.8 711.5
10 643.5 640.5 653.2
10 646.0 636.2 651.2
10 644.5 634.0 655.0
20 718.0 690.8 748.8
20 686.0 680.8 702.0
20 695.5 681.2 710.0
20 698.0 691.2 702.0
e
