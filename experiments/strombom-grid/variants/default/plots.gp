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
100 37 0.200000
100 53 1.000000
100 75 1.000000
100 99 1.000000
200 74 0.700000
200 106 1.000000
200 150 1.000000
200 199 1.000000
300 111 0.000000
300 159 0.000000
300 225 0.100000
300 299 0.800000
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
100 1631.0 1290.2 1753.5
100 666.0 615.0 700.8
100 676.0 630.8 710.2
100 753.5 724.0 786.2
200 1982.5 1600.2 2555.0
200 1600.5 1400.0 2049.2
200 1254.0 1068.2 1755.5
200 757.0 700.0 800.8
300 3227.5 2507.8 3947.2
300 1475.5 1218.8 2224.5
e
