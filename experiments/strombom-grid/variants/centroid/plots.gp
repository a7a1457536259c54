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
200 74 0.700000
200 106 1.000000
200 150 1.000000
200 199 1.000000
300 111 0.100000
300 159 0.200000
300 225 0.200000
300 299 1.000000
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
100 651.0 577.0 735.0
100 636.5 614.2 686.8
100 680.5 637.2 717.8
100 747.5 674.8 779.2
200 1148.0 685.0 1277.2
200 765.0 715.8 1235.8
200 757.5 719.8 847.5
200 752.5 689.5 805.5
300 3832.5 3818.8 3846.2
300 1761.5 1153.5 2337.8
300 2573.5 2220.5 2660.8
300 732.0 710.8 822.5
e
