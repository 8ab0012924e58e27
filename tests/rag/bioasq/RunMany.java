// Runs BioASQ's own evaluator (evaluation.EvaluatorTask1b of BioASQEvaluation.jar, unmodified)
// on many cases in one JVM, as `java -cp BioASQEvaluation.jar:lib/* evaluation.EvaluatorTask1b
// -phaseA -e VERSION GOLD SYSTEM -verbose` would one at a time. Each line of the list file
// (first argument) is "VERSION<TAB>GOLD<TAB>SYSTEM"; each case's output is followed by a line
// "=== end", after "=== failed EXCEPTION" where the evaluator threw one (the command would stop
// with it). Written for inexeval's tests (not part of BioASQ's code).
import evaluation.EvaluatorTask1b;

import java.io.BufferedReader;
import java.io.FileReader;
import java.io.IOException;

public class RunMany {
    public static void main(String[] args) throws IOException {
        try (BufferedReader list = new BufferedReader(new FileReader(args[0]))) {
            String line;
            while ((line = list.readLine()) != null) {
                String[] parts = line.split("\t");
                try {
                    EvaluatorTask1b evaluator = new EvaluatorTask1b(parts[1], parts[2],
                            Integer.parseInt(parts[0]));
                    evaluator.setVerbosity(true);
                    evaluator.EvaluatePhaseA();
                } catch (RuntimeException failure) {
                    System.out.println();
                    System.out.println("=== failed " + failure.getClass().getName());
                }
                System.out.println("=== end");
            }
        }
    }
}
