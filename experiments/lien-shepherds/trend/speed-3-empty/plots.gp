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
40 20 0.200000
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
10 252.5 232.8 274.5
10 223.5 218.0 232.8
10 220.0 210.5 226.0
10 217.5 210.5 225.2
10 216.5 208.5 221.2
20 302.0 275.2 322.8
20 234.0 226.8 245.5
20 226.0 220.8 239.2
20 227.5 220.2 233.0
20 226.0 221.8 234.2
40 1450.0 1148.8 1656.5
40 251.0 246.5 260.5
40 244.0 243.0 249.0
40 246.0 241.8 250.0
40 244.0 239.0 247.0
e
