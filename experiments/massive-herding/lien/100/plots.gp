set terminal pngcairo size 900,600 noenhanced
set grid
set key outside right
set output 'success.png.part'
set title 'success rate'
set xlabel 'agents[0].count'
set xrange [1.16:16.84]
set ylabel 'success rate (95 % Wilson interval)'
set yrange [-0.05:1.05]
plot '-' using 1:2:3:4 with yerrorlines title 'success'
2 1.000000 0.838875 1.000000
4 1.000000 0.838875 1.000000
8 1.000000 0.838875 1.000000
16 0.900000 0.698966 0.972134
e
set output 'steps.png.part'
set title 'steps to success: median and quartiles'
set autoscale y
set ylabel 'steps (successful runs)'
set xlabel 'agents[0].count'
set xrange [1.16:16.84]
plot '-' using 1:2:3:4 with yerrorlines title 'all'
2 616.5 367.5 1008.0
4 2184.0 1086.5 2794.2
8 235.0 229.8 240.5
16 233.5 222.2 245.0
e
