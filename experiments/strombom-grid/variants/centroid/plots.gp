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
100 37 0.450000
100 53 1.000000
100 75 1.000000
100 99 1.000000
200 74 0.800000
200 106 1.000000
200 150 1.000000
200 199 1.000000
300 111 0.250000
300 159 0.100000
300 225 0.250000
300 299 0.900000
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
100 596.0 560.0 624.0
100 645.0 594.0 679.0
100 656.5 615.0 691.2
100 733.5 707.8 770.2
200 976.0 672.2 1667.5
200 729.0 682.5 978.8
200 784.0 669.5 1240.0
200 734.0 674.8 773.2
300 3138.0 1857.0 4870.0
300 1272.0 1009.5 1534.5
300 2901.0 852.0 3847.0
300 743.5 710.0 835.0
e
