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
300 159 1.000000
300 299 1.000000
400 212 1.000000
400 399 1.000000
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
200 1340.0 1159.8 1829.8
e
200 801.5 720.2 1037.0
e
300 1605.5 1302.8 1697.0
e
300 1274.5 1179.5 1400.2
e
400 1490.5 1282.2 1760.8
e
400 1356.5 1228.5 1475.0
e
