set terminal pngcairo size 900,600 noenhanced
set grid
set key outside right
set output 'success.png.part'
set title 'success rate'
set xlabel 'sheep.count'
set xrange [88:312]
set ylabel 'sheep.neighbours'
set yrange [21.28:314.72]
set cblabel 'success rate'
set cbrange [0:1]
set view map
set palette defined (0 '#b2182b', 0.5 '#f4a442', 1 '#2166ac')
splot '-' using 1:2:3 with points pointtype 5 pointsize 2.5 palette notitle
100 37 0.800000
100 53 1.000000
100 75 1.000000
100 99 1.000000
200 74 0.000000
200 106 0.000000
200 150 0.000000
200 199 0.000000
300 111 0.000000
300 159 0.000000
300 225 0.000000
300 299 0.000000
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
set xrange [88:312]
plot '-' using 1:2:3:4 with yerrorlines title 'all'
100 2575.5 2264.8 2733.2
100 2465.0 2206.0 2699.0
100 2698.0 2340.5 3048.5
100 2614.5 2209.8 3382.2
e
