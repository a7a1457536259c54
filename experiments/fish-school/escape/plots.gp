set terminal pngcairo size 900,600 noenhanced
set grid
set key outside right
set output 'success.png.part'
set title 'success rate'
set xlabel 'fish.escape'
set xtics ('"ban2008"' 0, '"none"' 1)
set xrange [-0.06:1.06]
set ylabel 'success rate (95 % Wilson interval)'
set yrange [-0.05:1.05]
plot '-' using 1:2:3:4 with yerrorlines title 'success'
0 0.000000 0.000000 0.161125
1 0.000000 0.000000 0.161125
e
