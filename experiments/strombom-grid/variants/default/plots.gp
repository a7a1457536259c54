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
100 37 0.100000
100 53 1.000000
100 75 1.000000
100 99 1.000000
200 74 0.350000
200 106 1.000000
200 150 1.000000
200 199 1.000000
300 111 0.050000
300 159 0.050000
300 225 0.050000
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
100 839.5 710.8 968.2
100 658.5 635.5 709.5
100 700.5 655.5 735.8
100 767.5 693.2 795.5
200 2812.0 2215.5 3735.0
200 1601.5 1243.8 1888.5
200 1315.0 1139.8 1624.8
200 845.0 720.2 1136.2
300 4805.0 4805.0 4805.0
300 3762.0 3762.0 3762.0
300 4161.0 4161.0 4161.0
300 1274.5 1185.5 1455.8
e
