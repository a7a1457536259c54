set terminal pngcairo size 900,600 noenhanced
set grid
set key outside right
set output 'success.png.part'
set title 'success rate'
set xlabel 'sheep.count'
set xrange [188:412]
set ylabel 'sheep.neighbours'
set yrange [88.42:416.58]
set cblabel 'success rate'
set cbrange [0:1]
set view map
set palette defined (0 '#b2182b', 0.5 '#f4a442', 1 '#2166ac')
splot '-' using 1:2:3 with points pointtype 5 pointsize 2.5 palette notitle
200 106 1.000000
200 199 1.000000
300 159 0.050000
300 299 0.900000
400 212 0.000000
400 399 0.500000
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
set xrange [188:412]
plot '-' using 1:2:3:4 with yerrorlines title 'sheep.neighbours = 106', '-' using 1:2:3:4 with yerrorlines title 'sheep.neighbours = 199', '-' using 1:2:3:4 with yerrorlines title 'sheep.neighbours = 159', '-' using 1:2:3:4 with yerrorlines title 'sheep.neighbours = 299', '-' using 1:2:3:4 with yerrorlines title 'sheep.neighbours = 212', '-' using 1:2:3:4 with yerrorlines title 'sheep.neighbours = 399'
200 1601.5 1243.8 1888.5
e
200 845.0 720.2 1136.2
e
300 3762.0 3762.0 3762.0
e
300 1274.5 1185.5 1455.8
e
e
400 1395.5 1201.2 2516.8
e
