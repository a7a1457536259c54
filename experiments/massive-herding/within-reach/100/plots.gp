set terminal pngcairo size 900,600 noenhanced
set grid
set key outside right
set output 'success.png.part'
set title 'success rate'
set xlabel 'dogs.count'
set xrange [0.5:1.5]
set ylabel 'success rate (95 % Wilson interval)'
set yrange [-0.05:1.05]
plot '-' using 1:2:3:4 with yerrorlines title 'success'
1 1.000000 0.838875 1.000000
e
set output 'steps.png.part'
set title 'steps to success: median and quartiles'
set autoscale y
set ylabel 'steps (successful runs)'
set xlabel 'dogs.count'
set xrange [0.5:1.5]
plot '-' using 1:2:3:4 with yerrorlines title 'all'
1 251.0 206.8 298.5
e
