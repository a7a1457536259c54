set terminal pngcairo size 900,600 noenhanced
set grid
set key outside right
set output 'success.png.part'
set title 'success rate'
set xlabel 'dogs.count'
set xrange [1.16:16.84]
set ylabel 'success rate (95 % Wilson interval)'
set yrange [-0.05:1.05]
plot '-' using 1:2:3:4 with yerrorlines title 'success'
2 0.000000 0.000000 0.161125
4 0.000000 0.000000 0.161125
8 0.000000 0.000000 0.161125
16 0.000000 0.000000 0.161125
e
