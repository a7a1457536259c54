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
10 5 0.850000
10 5 1.000000
10 5 1.000000
10 5 1.000000
10 5 1.000000
20 10 0.950000
20 10 1.000000
20 10 1.000000
20 10 1.000000
20 10 1.000000
40 20 0.300000
40 20 1.000000
40 20 0.950000
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
10 376.0 322.0 876.0
10 566.0 520.5 789.0
10 287.0 270.5 400.0
10 473.5 351.0 584.2
10 304.0 287.0 415.2
20 403.0 333.0 487.5
20 434.0 341.5 534.8
20 279.5 274.0 313.2
20 327.0 285.2 358.8
20 318.5 300.0 332.8
40 1173.5 1036.8 1420.5
40 302.5 293.0 413.8
40 323.0 302.5 394.5
40 313.5 296.8 341.2
40 309.0 286.8 333.5
e
