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
40 20 0.400000
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
10 250.5 231.0 288.2
10 231.5 217.0 234.2
10 226.0 215.8 235.8
10 219.5 215.0 225.2
10 223.0 215.5 228.0
20 331.5 302.5 378.0
20 248.5 236.5 258.2
20 232.5 229.5 243.2
20 235.5 229.0 239.5
20 235.0 228.0 238.2
40 939.0 602.5 1510.8
40 277.5 251.5 325.2
40 252.5 250.8 268.0
40 254.0 248.8 261.2
40 253.5 249.8 259.5
e
