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
2 1.000000 0.838875 1.000000
4 1.000000 0.838875 1.000000
8 1.000000 0.838875 1.000000
16 1.000000 0.838875 1.000000
e
set output 'steps.png.part'
set title 'steps to success: median and quartiles'
set autoscale y
set ylabel 'steps (successful runs)'
set xlabel 'dogs.count'
set xrange [1.16:16.84]
plot '-' using 1:2:3:4 with yerrorlines title 'all'
2 200.0 195.0 206.2
4 186.5 179.0 191.5
8 169.0 163.8 199.0
16 161.0 159.8 162.0
e
