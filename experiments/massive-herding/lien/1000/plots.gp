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
2 0.650000 0.432854 0.818808
4 1.000000 0.838875 1.000000
8 1.000000 0.838875 1.000000
16 0.800000 0.583983 0.919342
e
set output 'steps.png.part'
set title 'steps to success: median and quartiles'
set autoscale y
set ylabel 'steps (successful runs)'
set xlabel 'agents[0].count'
set xrange [1.16:16.84]
plot '-' using 1:2:3:4 with yerrorlines title 'all'
2 11758.0 2563.0 17295.0
4 5746.5 2581.8 8068.8
8 2713.5 1778.5 6903.0
16 6064.0 3563.5 9739.2
e
