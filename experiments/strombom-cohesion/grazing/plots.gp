set terminal pngcairo size 900,600 noenhanced
set grid
set key outside right
set output 'success.png.part'
set title 'success rate'
set xlabel 'sheep.count'
set xrange [3.2:316.8]
set ylabel 'sheep.neighbours'
set yrange [17.14:51.86]
set cblabel 'success rate'
set cbrange [0:1]
set view map
set palette defined (0 '#b2182b', 0.5 '#f4a442', 1 '#2166ac')
splot '-' using 1:2:3 with points pointtype 5 pointsize 2.5 palette notitle
20 19 0.000000
30 29 0.000000
50 49 0.000000
75 50 0.000000
100 50 0.000000
150 50 0.000000
200 50 0.000000
300 50 0.000000
e
unset view
unset cblabel
set autoscale
set ytics auto
