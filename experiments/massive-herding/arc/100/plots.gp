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
2 0.900000 0.698966 0.972134
4 0.550000 0.342085 0.741802
8 0.450000 0.258198 0.657915
16 0.350000 0.181192 0.567146
e
set output 'steps.png.part'
set title 'steps to success: median and quartiles'
set autoscale y
set ylabel 'steps (successful runs)'
set xlabel 'dogs.count'
set xrange [1.16:16.84]
plot '-' using 1:2:3:4 with yerrorlines title 'all'
2 205.0 199.5 210.5
4 193.0 184.5 197.0
8 450.0 253.0 1563.0
16 170.0 166.5 173.0
e
